import type { ApprovalVerdict } from "./approval-verdict.js";

/**
 * The verdict for a turn that cannot wait for a decision (a subagent, a `/v1` completion, MCP without elicitation):
 * `ask` becomes `deny`, saying why, so the model hears the call was refused and that a member could allow it.
 */
export function verdictWithoutWaiting(verdict: ApprovalVerdict, why: string): ApprovalVerdict {
  if (verdict.policy !== "ask") return verdict;
  return { policy: "deny", reason: `${verdict.reason}, and ${why}` };
}
