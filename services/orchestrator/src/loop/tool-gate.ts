import type { ApprovalOutcome, ToolName } from "@agent-orchestrator/shared/wire";
import type { ApprovalVerdict } from "../approvals/approval-verdict.js";

/**
 * Asked before each valid tool call runs (docs/approvals.md): `allow` runs it, `deny` answers the model with a tool
 * error naming the reason, `ask` stops the turn at that call, which waits for a member's decision. A turn that
 * cannot wait (a subagent, `/v1`) is given a gate that never says ask.
 */
export interface ToolGate {
  verdict(name: ToolName, args: Record<string, unknown>): ApprovalVerdict;
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
