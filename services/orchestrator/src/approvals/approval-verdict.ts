import { ApprovalToolName, commandLineParts, getOwn, type ApprovalPolicy, type EffectiveApprovals } from "@agent-orchestrator/shared/wire";
import { matchesCommandPattern } from "./command-pattern.js";

/** What a project's policies say of one tool call, and why, in words a member (and the model) reads. */
export interface ApprovalVerdict {
  policy: ApprovalPolicy;
  reason: string;
}

/** Command lines longer than this are not matched against patterns: they take run_command's own policy, at least ask. */
export const maxMatchedCommandChars = 8 * 1024;

const strictness: Record<ApprovalPolicy, number> = { allow: 0, ask: 1, deny: 2 };
const stricter = (a: ApprovalPolicy, b: ApprovalPolicy): ApprovalPolicy => (strictness[b] > strictness[a] ? b : a);
const quoted = (text: string): string => JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text);

/**
 * The policy of one tool call (docs/approvals.md "Policies"): a tool that only reads always runs; the others take
 * their tool's policy; `run_command` is judged per command of its line: each piece takes the strictest policy of the
 * patterns it matches (deny over ask over allow, whatever their order), or run_command's own when it matches none, and
 * the line takes the strictest of its pieces, so it is allowed only when every piece is.
 *
 * `cannotWait` says why the turn cannot wait for a decision (a subagent, a `/v1` completion, MCP without
 * elicitation): then `ask` becomes `deny`, saying why, so the model hears the call was refused and that a member
 * could allow it.
 */
export function approvalVerdict(approvals: EffectiveApprovals, tool: string, args: Record<string, unknown>, cannotWait?: string): ApprovalVerdict {
  const verdict = policyOf(approvals, tool, args);
  if (cannotWait === undefined || verdict.policy !== "ask") return verdict;
  return { policy: "deny", reason: `${verdict.reason}, and ${cannotWait}` };
}

function policyOf(approvals: EffectiveApprovals, tool: string, args: Record<string, unknown>): ApprovalVerdict {
  const known = ApprovalToolName.safeParse(tool);
  if (!known.success) return { policy: "allow", reason: `${tool} only reads` };
  const toolPolicy = getOwn(approvals.tools, known.data) ?? (known.data === "run_command" ? "ask" : "allow");
  const byTool: ApprovalVerdict = { policy: toolPolicy, reason: `${tool} is set to ${toolPolicy} in this project` };
  if (known.data !== "run_command") return byTool;
  const command = args["command"];
  if (typeof command !== "string") return byTool;
  if (command.length > maxMatchedCommandChars) {
    const policy = stricter(toolPolicy, "ask");
    return { policy, reason: `the command line is longer than ${maxMatchedCommandChars} characters, so it is not matched against the project's patterns` };
  }
  const parts = commandLineParts(command);
  if (parts.length === 0) return byTool;
  const judged = parts.map((part) => commandVerdict(approvals, part, toolPolicy));
  const worst = judged.reduce((a, b) => (strictness[b.policy] > strictness[a.policy] ? b : a));
  if (worst.policy === "allow") {
    return { policy: "allow", reason: parts.length === 1 ? worst.reason : `every command of the line is allowed (${judged.map((j) => j.reason).join("; ")})` };
  }
  return worst;
}

function commandVerdict(approvals: EffectiveApprovals, part: string, toolPolicy: ApprovalPolicy): ApprovalVerdict {
  let found: { pattern: string; policy: ApprovalPolicy } | undefined;
  for (const rule of approvals.commands) {
    if (!matchesCommandPattern(rule.pattern, part)) continue;
    if (!found || strictness[rule.policy] > strictness[found.policy]) found = rule;
  }
  if (found) return { policy: found.policy, reason: `${quoted(part)} matches ${quoted(found.pattern)}, which is set to ${found.policy} in this project` };
  return { policy: toolPolicy, reason: `${quoted(part)} matches no command pattern of this project, and run_command is set to ${toolPolicy}` };
}
