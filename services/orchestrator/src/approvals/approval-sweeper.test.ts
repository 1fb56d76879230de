import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createLogger } from "@agent-orchestrator/shared/runtime";
import type { ApprovalRecord } from "@agent-orchestrator/shared/wire";
import { pendingRecord } from "../testing/pending-approval.js";
import { scratchStreams } from "../testing/scratch-streams.js";
import { ApprovalStore } from "./approval-store.js";
import { sweepApprovals } from "./approval-sweeper.js";
import { cancelApprovals } from "./cancel-approvals.js";

const scratch = scratchStreams();
const logger = createLogger("sweeper-test", "silent");

async function freshStore(): Promise<ApprovalStore> {
  const bucket = `approvals_${randomUUID().slice(0, 8)}`;
  scratch.track(`KV_${bucket}`);
  return ApprovalStore.open(scratch.connection(), bucket);
}

describe("sweepApprovals", () => {
  it("expires a call past its expiry once, however many replicas sweep at once, and queues its turn's resume", async () => {
    const store = await freshStore();
    const expired = pendingRecord({ expires_at: new Date(Date.now() - 1_000).toISOString() });
    const waiting = pendingRecord();
    await store.create(expired);
    await store.create(waiting);
    const resumed: ApprovalRecord[] = [];
    const deps = { approvals: store, resume: async (record: ApprovalRecord) => void resumed.push(record), logger, requeueAfterMs: 60_000 };
    const results = await Promise.all([sweepApprovals(deps), sweepApprovals(deps), sweepApprovals(deps)]);
    expect(results.reduce((sum, result) => sum + result.expired, 0)).toBe(1);
    expect(resumed).toEqual([expect.objectContaining({ approval_id: expired.approval_id, status: "expired", decided: expect.objectContaining({ outcome: "expire" }) })]);
    expect((await store.get("s1", waiting.approval_id))?.record.status).toBe("pending");
    // a decision on it now is too late
    expect((await store.pendingOfSession("s1")).map((record) => record.approval_id)).toEqual([waiting.approval_id]);
  });

  it("queues again the resume of a call decided a while ago whose turn never resumed, and never one that resumed", async () => {
    const store = await freshStore();
    const decidedAt = new Date(Date.now() - 120_000).toISOString();
    const lost = pendingRecord();
    const done = pendingRecord();
    for (const record of [lost, done]) {
      await store.create(record);
      await store.transition("s1", record.approval_id, ["pending"], (current) => ({ ...current, status: "approved", decided: { outcome: "approve", by: "erin", at: decidedAt } }));
    }
    await store.transition("s1", done.approval_id, ["approved"], (current) => ({ ...current, status: "resumed" }));
    const resumed: string[] = [];
    const result = await sweepApprovals({ approvals: store, resume: async (record) => void resumed.push(record.approval_id), logger, requeueAfterMs: 60_000 });
    expect(result).toEqual({ expired: 0, requeued: 1 });
    expect(resumed).toEqual([lost.approval_id]);
    // a recent decision is left to the replica that recorded it
    expect((await sweepApprovals({ approvals: store, resume: async () => undefined, logger, requeueAfterMs: 600_000 })).requeued).toBe(0);
  });
});

describe("cancelApprovals", () => {
  it("cancels a chat's pending calls once across replicas and queues each turn's resume, leaving other chats' alone", async () => {
    const store = await freshStore();
    const mine = pendingRecord();
    const other = pendingRecord({ session_id: "s2" });
    await store.create(mine);
    await store.create(other);
    const resumed: string[] = [];
    const resume = async (record: ApprovalRecord) => void resumed.push(record.approval_id);
    const [first, second] = await Promise.all([cancelApprovals(store, "s1", "erin", resume), cancelApprovals(store, "s1", "erin", resume)]);
    expect([...(first ?? []), ...(second ?? [])].map((record) => record.approval_id)).toEqual([mine.approval_id]);
    expect(resumed).toEqual([mine.approval_id]);
    expect((await store.get("s1", mine.approval_id))?.record).toMatchObject({ status: "cancelled", decided: { outcome: "cancel", by: "erin" } });
    expect((await store.get("s2", other.approval_id))?.record.status).toBe("pending");
  });
});
