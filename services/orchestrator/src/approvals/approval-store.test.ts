import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { pendingRecord } from "../testing/pending-approval.js";
import { scratchStreams } from "../testing/scratch-streams.js";
import { ApprovalStore } from "./approval-store.js";

const scratch = scratchStreams();

let bucket = "";

/** Two stores over one fresh bucket: two orchestrator replicas. */
async function twoReplicas(): Promise<[ApprovalStore, ApprovalStore]> {
  bucket = `approvals_${randomUUID().slice(0, 8)}`;
  scratch.track(`KV_${bucket}`);
  return [await ApprovalStore.open(scratch.connection(), bucket), await ApprovalStore.open(scratch.connection(), bucket)];
}

describe("ApprovalStore", () => {
  it("lists a chat's and a project's pending calls, and neither lists another's", async () => {
    const [store] = await twoReplicas();
    const first = pendingRecord({ created_at: "2026-01-01T00:00:00.000Z" });
    const second = pendingRecord({ created_at: "2026-01-01T00:00:01.000Z" });
    const otherChat = pendingRecord({ session_id: "s2" });
    const otherProject = pendingRecord({ session_id: "s3", project_id: "p2" });
    for (const record of [second, first, otherChat, otherProject]) await store.create(record);
    expect((await store.pendingOfSession("s1")).map((record) => record.approval_id)).toEqual([first.approval_id, second.approval_id]);
    expect((await store.pendingOfProject("p1")).map((record) => record.approval_id).sort()).toEqual([first.approval_id, second.approval_id, otherChat.approval_id].sort());
    expect((await store.pendingOfProject("p2")).map((record) => record.approval_id)).toEqual([otherProject.approval_id]);
    expect(await store.get("s2", first.approval_id)).toBeUndefined();
  });

  it("case 95: of the same decision sent to two replicas at once, exactly one is recorded", async () => {
    const [first, second] = await twoReplicas();
    const record = pendingRecord();
    await first.create(record);
    const decide = (store: ApprovalStore, by: string) =>
      store.transition("s1", record.approval_id, ["pending"], (current) => ({ ...current, status: "approved", decided: { outcome: "approve", by, at: new Date().toISOString() } }));
    const outcomes = await Promise.all(Array.from({ length: 6 }, (_unused, index) => decide(index % 2 ? first : second, `member${index}`)));
    expect(outcomes.filter((outcome) => outcome.changed)).toHaveLength(1);
    const winner = outcomes.find((outcome) => outcome.changed)?.record.decided?.by;
    for (const outcome of outcomes) expect(outcome.record.decided?.by).toBe(winner);
    expect((await second.get("s1", record.approval_id))?.record).toMatchObject({ status: "approved", decided: { by: winner } });
    // no longer pending anywhere
    expect(await first.pendingOfSession("s1")).toEqual([]);
    expect(await first.pendingOfProject("p1")).toEqual([]);
    // still waiting for its turn to resume, until it has
    expect((await first.allWaiting()).map((found) => found.status)).toEqual(["approved"]);
    await second.transition("s1", record.approval_id, ["approved"], (current) => ({ ...current, status: "resumed" }));
    expect(await first.allWaiting()).toEqual([]);
  });

  it("answers APPROVAL_NOT_FOUND for a call that is not the chat's", async () => {
    const [store] = await twoReplicas();
    const record = pendingRecord();
    await store.create(record);
    await expect(store.transition("s2", record.approval_id, ["pending"], (current) => current)).rejects.toMatchObject({ code: "APPROVAL_NOT_FOUND" });
  });

  it("sweeps a pending mark a crash left after its record moved on, and forgets an ended record for good", async () => {
    const [store] = await twoReplicas();
    const record = pendingRecord();
    await store.create(record);
    expect((await store.allWaiting()).map((found) => found.approval_id)).toEqual([record.approval_id]);
    const ended = await store.transition("s1", record.approval_id, ["pending"], (current) => ({ ...current, status: "resumed", decided: { outcome: "expire", at: new Date().toISOString() } }));
    // the mark as a replica that died between the record's move and the mark's removal leaves it
    const kv = await scratch.connection().jetstream().views.kv(bucket);
    const mark = `pending.p1.s1.${record.approval_id}`;
    await kv.put(mark, new TextEncoder().encode("{}"));
    expect(await store.pendingOfProject("p1")).toEqual([]);
    expect(await store.allWaiting()).toEqual([]);
    expect((await kv.get(mark))?.operation).not.toBe("PUT");
    await store.forget(ended.record);
    expect(await store.get("s1", record.approval_id)).toBeUndefined();
  });

  it("purges the records of calls resumed before a time, and keeps the others", async () => {
    const [store] = await twoReplicas();
    const old = pendingRecord();
    const recent = pendingRecord();
    const waiting = pendingRecord();
    for (const record of [old, recent, waiting]) await store.create(record);
    for (const [record, at] of [[old, "2026-01-01T00:00:00.000Z"], [recent, new Date().toISOString()]] as const) {
      await store.transition("s1", record.approval_id, ["pending"], (current) => ({ ...current, status: "resumed", decided: { outcome: "approve", by: "erin", at } }));
    }
    expect(await store.purgeResumed(new Date(Date.now() - 60_000))).toBe(1);
    expect(await store.get("s1", old.approval_id)).toBeUndefined();
    expect((await store.get("s1", recent.approval_id))?.record.status).toBe("resumed");
    expect((await store.get("s1", waiting.approval_id))?.record.status).toBe("pending");
  });
});
