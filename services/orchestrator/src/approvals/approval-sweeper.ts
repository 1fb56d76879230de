import type { Logger } from "@agent-orchestrator/shared/runtime";
import type { ApprovalRecord } from "@agent-orchestrator/shared/wire";
import type { ApprovalStore } from "./approval-store.js";

export interface ApprovalSweepDeps {
  approvals: ApprovalStore;
  /** queues the turn's resume (resume-queue.ts) */
  resume: (record: ApprovalRecord) => Promise<void>;
  logger: Logger;
  /** a decided call whose turn has not resumed after this long is queued again (its first queueing may have been lost) */
  requeueAfterMs: number;
  now?: () => number;
}

/** What one sweep did. */
export interface SweepResult {
  expired: number;
  requeued: number;
}

/**
 * One sweep over every waiting call (docs/approvals.md "Expiry"): nats-server 2.9 has no per-message TTL, so every
 * orchestrator replica looks on its own; a pending call past its expiry is marked `expired` by compare-and-set, which
 * one replica wins and then queues the turn's resume (which ends it with APPROVAL_EXPIRED); a call decided a while ago
 * whose turn has not resumed (the replica that recorded the decision died before it queued the resume) is queued
 * again, which the resume takes at most once.
 */
export async function sweepApprovals(deps: ApprovalSweepDeps): Promise<SweepResult> {
  const now = deps.now?.() ?? Date.now();
  const result: SweepResult = { expired: 0, requeued: 0 };
  for (const record of await deps.approvals.allWaiting()) {
    try {
      if (record.status === "pending") {
        if (Date.parse(record.expires_at) > now) continue;
        const moved = await deps.approvals.transition(record.session_id, record.approval_id, ["pending"], (current) => ({
          ...current,
          status: "expired",
          decided: { outcome: "expire", at: new Date(now).toISOString() },
        }));
        if (!moved.changed) continue;
        result.expired += 1;
        await deps.resume(moved.record);
      } else if (record.decided && Date.parse(record.decided.at) + deps.requeueAfterMs <= now) {
        result.requeued += 1;
        await deps.resume(record);
      }
    } catch (error) {
      // the next sweep tries again; one call's failure does not stop the others'
      deps.logger.warn({ err: error, sessionId: record.session_id, approvalId: record.approval_id }, "a waiting tool call could not be swept");
    }
  }
  return result;
}

/** A resumed call's record is kept this long, so a decision sent again is told who decided. */
export const resumedRecordKeepMs = 7 * 24 * 3_600_000;
/** How often a replica purges the records kept past that: it reads every record key. */
const purgeEveryMs = 3_600_000;

/**
 * Sweeps every `intervalMs` until stopped, and purges resumed records a week old once an hour; a sweep never
 * overlaps the next.
 */
export function startApprovalSweeper(deps: ApprovalSweepDeps, intervalMs: number): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  let purgedAt = 0;
  const purge = async () => {
    if (Date.now() - purgedAt < purgeEveryMs) return;
    purgedAt = Date.now();
    const purged = await deps.approvals.purgeResumed(new Date(Date.now() - resumedRecordKeepMs));
    if (purged > 0) deps.logger.info({ purged }, "records of tool calls decided over a week ago purged");
  };
  const timer = setInterval(() => {
    if (stopped) return;
    running = running.then(() =>
      sweepApprovals(deps)
        .then(purge)
        .catch((error: unknown) => deps.logger.warn({ err: error }, "the sweep of waiting tool calls failed; the next one tries again")),
    );
  }, intervalMs);
  timer.unref();
  return {
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
