import type { ApprovalOutcome, EffectiveApprovals, ToolName } from "@agent-orchestrator/shared/wire";

/**
 * What each valid tool call is asked of before it runs (docs/approvals.md; approvals/approval-verdict.ts): `allow`
 * runs it, `deny` answers the model with a tool error naming the reason, `ask` stops the turn at that call, which
 * waits for a member's decision; in a turn that cannot wait (a subagent, `/v1`), `cannotWait` says why, and such a
 * call is denied.
 */
export interface ToolGate {
  approvals: EffectiveApprovals;
  cannotWait?: string | undefined;
}

/** The call a paused turn stopped at, and why it waits. */
export interface PausedCall {
  id: string;
  name: ToolName;
  args: Record<string, unknown>;
  reason: string;
}

/** How the call a resumed turn stopped at was decided. */
export interface CallDecision {
  /** the model's id of the decided call */
  callId: string;
  outcome: ApprovalOutcome;
  by?: string | undefined;
  /** the arguments a member approved instead of the model's */
  arguments?: Record<string, unknown> | undefined;
  message?: string | undefined;
  /** the idempotency key the approved call runs with: the same on every delivery of the resume, so it runs once */
  callKey: string;
  /** ISO time a pending call expired (for the turn's error) */
  expiredAt?: string | undefined;
}
