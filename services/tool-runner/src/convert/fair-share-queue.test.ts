import { describe, expect, it } from "vitest";
import { FairShareQueue } from "./fair-share-queue.js";

const settle = () => new Promise((resolve) => setImmediate(resolve));

/** Enters each of `users` in order (one slot), then lets the running one leave, again and again: who started when. */
async function startOrder(queue: FairShareQueue, users: string[]): Promise<string[]> {
  const started: string[] = [];
  for (const user of users) {
    const entry = queue.enter(user);
    if (!entry.ok) throw new Error(entry.reason);
    void entry.turn.then(() => started.push(user));
  }
  await settle();
  for (let index = 0; index < users.length; index += 1) {
    const running = started[index];
    if (running === undefined) throw new Error(`nobody started after ${started.join(", ")}`);
    queue.leave(running);
    await settle();
  }
  return started;
}

// One user's many documents take turns with other users' ones (docs/uploads.md "Documents become Markdown").
describe("FairShareQueue", () => {
  it("gives the next slot to another user's one document before the busy user's other four", async () => {
    const queue = new FairShareQueue({ slots: 1, maxWaiting: 10, perUser: 10 });
    expect(await startOrder(queue, ["alice", "alice", "alice", "alice", "alice", "bob"])).toEqual(["alice", "bob", "alice", "alice", "alice", "alice"]);
  });

  it("takes users in turns, each in its own arrival order", async () => {
    const queue = new FairShareQueue({ slots: 1, maxWaiting: 10, perUser: 10 });
    expect(await startOrder(queue, ["alice", "alice", "alice", "bob", "bob", "carol"])).toEqual(["alice", "bob", "carol", "alice", "bob", "alice"]);
  });

  it("refuses a user's document past their share, while another user's still gets in", () => {
    const queue = new FairShareQueue({ slots: 1, maxWaiting: 10, perUser: 2 });
    expect(queue.enter("alice")).toMatchObject({ ok: true });
    expect(queue.enter("alice")).toMatchObject({ ok: true });
    expect(queue.enter("alice")).toEqual({
      ok: false,
      reason: "conversion queue full: you have 2 converting or waiting, the most one user may have; upload it again when they are done",
    });
    expect(queue.enter("bob")).toMatchObject({ ok: true });
    // one of alice's ends: she may queue one again
    queue.leave("alice");
    expect(queue.enter("alice")).toMatchObject({ ok: true });
  });

  it("refuses any document once the queue is full, and takes one again when a slot frees", () => {
    const queue = new FairShareQueue({ slots: 1, maxWaiting: 2, perUser: 10 });
    for (const user of ["alice", "bob", "carol"]) expect(queue.enter(user)).toMatchObject({ ok: true });
    expect(queue.enter("dave")).toEqual({ ok: false, reason: "conversion queue full (2 waiting); upload it again later" });
    queue.leave("alice");
    expect(queue.enter("dave")).toMatchObject({ ok: true });
  });
});
