import type { ApprovalDeciders, ApprovalOutcome } from "@agent-orchestrator/shared/wire";

/** How a waiting call ended, as an `approval_decided` event or a decided approval says it. */
export interface ApprovalEnd {
  outcome: ApprovalOutcome;
  /** the member who decided or cancelled; absent for an expiry */
  by?: string | undefined;
  arguments_edited?: boolean | undefined;
  /** the member's words to the model, when the page knows them */
  message?: string | undefined;
}

/** Who may decide a call (docs/approvals.md "Who decides"), for a member who may not: a viewer, or an editor the rule leaves out. */
export function whoDecides(requester: string, deciders: ApprovalDeciders): string {
  return deciders === "editors" ? `${requester}, the project's owner or any editor can decide.` : `${requester} or the project's owner can decide.`;
}

/** "Approved by bob with changed arguments", "Rejected by you: “not now”", "Expired: nobody decided in time". */
export function endText(end: ApprovalEnd, byYou = false): string {
  const by = byYou ? " by you" : end.by === undefined ? "" : ` by ${end.by}`;
  switch (end.outcome) {
    case "approve":
      return `Approved${by}${end.arguments_edited ? " with changed arguments" : ""}`;
    case "reject":
      return `Rejected${by}${end.message === undefined ? "" : `: “${end.message}”`}`;
    case "expire":
      return "Expired: nobody decided in time";
    case "cancel":
      return `Cancelled${by}: the chat was stopped`;
  }
}
