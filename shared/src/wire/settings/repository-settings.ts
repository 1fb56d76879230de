import { z } from "zod";
import { commandLineParts } from "../approvals/command-line-parts.js";
import { CommandLineText, type CommandRule, type EffectiveApprovals } from "./approvals-settings.js";

/** The most verify commands a project may name. */
export const maxVerifyCommands = 50;

/**
 * A command that checks the project's code (`npm test`, `pytest -q`, `npm ci && npm test`): what BMAD's `bmad-build`
 * runs as "the checks in the spec's Verification section" (docs/repositories.md "Commands the project allows").
 */
export const VerifyCommand = CommandLineText.refine((text) => commandLineParts(text).length > 0, { message: "names no command" });

/**
 * `repository` of a project's settings document: how the model's commands meet the project's git repository
 * (docs/commands.md, docs/repositories.md). `network`: whether `run_command`'s sandbox may use the network (off unless
 * set). `verify`: the project's check commands, which run without asking (`verifyRules`).
 */
export const RepositorySettings = z.strictObject({
  network: z.boolean().optional(),
  verify: z.array(VerifyCommand).max(maxVerifyCommands).optional(),
});
export type RepositorySettings = z.infer<typeof RepositorySettings>;

/**
 * The allow rules the project's verify commands make (docs/approvals.md "Command patterns"): each command of each
 * line (cut as approvals cut a line), so `npm ci && npm test` allows `npm ci` and `npm test`, each as a pattern (a
 * `*` in one stands for any text, as in `approvals.commands`).
 */
export function verifyRules(repository: RepositorySettings | undefined): CommandRule[] {
  const parts = new Set((repository?.verify ?? []).flatMap((line) => commandLineParts(line)));
  return [...parts].map((pattern) => ({ pattern, policy: "allow" }));
}

/**
 * The policies a turn applies with the project's verify commands allowed: after the project's (or the defaults')
 * command rules, so a stricter rule that matches one still wins (the strictest matching rule decides).
 */
export function withVerifyCommands(approvals: EffectiveApprovals, repository: RepositorySettings | undefined): EffectiveApprovals {
  const rules = verifyRules(repository);
  return rules.length === 0 ? approvals : { ...approvals, commands: [...approvals.commands, ...rules] };
}
