import { z } from "zod";
import { hasBidiFormat } from "../bidi-format.js";
import { scanCommandLine } from "../approvals/command-line-parts.js";

/**
 * A project's approval policies (docs/approvals.md): per tool, and for `run_command` per command pattern, whether a
 * call runs (`allow`), waits for a member's decision (`ask`) or is refused with a tool error the model reads (`deny`).
 * They live under `approvals` in the project's settings document; the operator's defaults (APPROVALS_DEFAULTS) apply
 * to every key a project leaves unset.
 */

export const ApprovalPolicy = z.enum(["allow", "ask", "deny"]);
export type ApprovalPolicy = z.infer<typeof ApprovalPolicy>;

/** The tools a policy can be set for: those that change something. The others only read and always run. */
export const ApprovalToolName = z.enum(["save_output", "edit_file", "run_script", "run_command"]);
export type ApprovalToolName = z.infer<typeof ApprovalToolName>;

/**
 * Who may decide a pending call: `requester`, the member whose turn it was, and the project's owner; `editors`, any
 * editor too. Viewers never decide.
 */
export const ApprovalDeciders = z.enum(["requester", "editors"]);
export type ApprovalDeciders = z.infer<typeof ApprovalDeciders>;

/** The most command rules one layer may hold. */
export const maxCommandRules = 200;
/** The longest a pending call may wait: 30 days. */
export const maxExpireMinutes = 30 * 24 * 60;

// a line break in a pattern would read as two commands to a person and as one to the matcher
const controlCharacter = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/u;

/**
 * A command line as an owner writes one into the settings (a pattern here, a verify command in `repository`): trimmed,
 * at most 512 characters, no control, line break or bidi format character.
 */
export const CommandLineText = z
  .string()
  .trim()
  .min(1)
  .max(512)
  .refine((text) => !controlCharacter.test(text), { message: "may not hold control characters or line breaks" })
  .refine((text) => !hasBidiFormat(text), { message: "may not hold bidi format characters" });

/** A command pattern: the whole command line, `*` standing for any text (docs/approvals.md "Command patterns"). */
export const CommandPattern = CommandLineText
  // a line is cut into its commands before matching, so a pattern holding a separator could never match
  .refine((text) => !scanCommandLine(text).separated, {
    message: "a pattern is one command: no ;, &&, ||, |, &, $(, backticks, parentheses or redirections (write one rule per command)",
  });

export const CommandRule = z.strictObject({ pattern: CommandPattern, policy: ApprovalPolicy });
export type CommandRule = z.infer<typeof CommandRule>;

/**
 * `approvals` of a project's settings document, and the shape of APPROVALS_DEFAULTS. Each key a project sets
 * replaces the default's (`tools` tool by tool; `commands` as a whole list).
 */
export const ApprovalsSettings = z.strictObject({
  tools: z.partialRecord(ApprovalToolName, ApprovalPolicy).optional(),
  commands: z.array(CommandRule).max(maxCommandRules).optional(),
  deciders: ApprovalDeciders.optional(),
  expire_minutes: z.number().int().min(1).max(maxExpireMinutes).optional(),
});
export type ApprovalsSettings = z.infer<typeof ApprovalsSettings>;

/** The policies a turn applies: the project's over the defaults, every key filled in. */
export const EffectiveApprovals = z.object({
  tools: z.partialRecord(ApprovalToolName, ApprovalPolicy),
  commands: z.array(CommandRule),
  deciders: ApprovalDeciders,
  expire_minutes: z.number().int().min(1).max(maxExpireMinutes),
});
export type EffectiveApprovals = z.infer<typeof EffectiveApprovals>;

/**
 * The policies before the operator's APPROVALS_DEFAULTS and a project's own: documents and BMAD's scripts run as they
 * always did; commands ask, but for git's read-only ones; the member whose turn it was (and the owner) decides; a
 * call waits a day.
 */
export const builtInApprovals: EffectiveApprovals = {
  tools: { save_output: "allow", edit_file: "allow", run_script: "allow", run_command: "ask" },
  // what BMAD's dev steps ask first ("is the tree clean, does the branch make sense, which commit is the baseline")
  commands: ["git status*", "git diff*", "git log*", "git show*", "git rev-parse*", "git branch --show-current"].map((pattern) => ({ pattern, policy: "allow" })),
  deciders: "requester",
  expire_minutes: 24 * 60,
};

/** The project's keys over the defaults' (the defaults already complete). */
export function effectiveApprovals(defaults: EffectiveApprovals, project: ApprovalsSettings | undefined): EffectiveApprovals {
  return {
    tools: { ...defaults.tools, ...project?.tools },
    commands: project?.commands ?? defaults.commands,
    deciders: project?.deciders ?? defaults.deciders,
    expire_minutes: project?.expire_minutes ?? defaults.expire_minutes,
  };
}
