import type { ApprovalRecord } from "@agent-orchestrator/shared/wire";
import type { ApprovalStore } from "./approval-store.js";

/**
 * Cancelling a chat rejects its pending calls (docs/approvals.md "Cancelling"): each moves to `cancelled` by
 * compare-and-set (every orchestrator replica hears a cancel; one wins each call) and its turn is queued to resume,
 * which ends it with CANCELLED. Returns the calls this replica cancelled.
 */
export async function cancelApprovals(approvals: ApprovalStore, sessionId: string, by: string | undefined, resume: (record: ApprovalRecord) => Promise<void>): Promise<ApprovalRecord[]> {
  const cancelled: ApprovalRecord[] = [];
  for (const record of await approvals.pendingOfSession(sessionId)) {
    const moved = await approvals.transition(sessionId, record.approval_id, ["pending"], (current) => ({
      ...current,
      status: "cancelled",
      decided: { outcome: "cancel", ...(by === undefined ? {} : { by }), at: new Date().toISOString() },
    }));
    if (!moved.changed) continue;
    cancelled.push(moved.record);
    await resume(moved.record);
  }
  return cancelled;
}
