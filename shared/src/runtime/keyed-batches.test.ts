import { describe, expect, it } from "vitest";
import { KeyedBatches } from "./keyed-batches.js";

/** A write that records each batch and answers when the test lets it. */
function recordingWrites(fail: (key: string, items: string[]) => boolean = () => false) {
  const batches: Array<[string, string[]]> = [];
  const ends: Array<() => void> = [];
  const batchesQueue = new KeyedBatches<string, string>(async (key, items) => {
    batches.push([key, items]);
    await new Promise<void>((resolve) => ends.push(resolve));
    if (fail(key, items)) throw new Error(`${key} refused`);
    return items.map((item) => `${item} written`);
  });
  const endWrites = async () => {
    await new Promise((resolve) => setImmediate(resolve));
    for (const end of ends.splice(0)) end();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { queue: batchesQueue, batches, endWrites };
}

describe("KeyedBatches", () => {
  it("writes what was given while a key's write was under way in one next write, each item answered with its own result", async () => {
    const { queue, batches, endWrites } = recordingWrites();
    const first = queue.run("k", "a");
    await new Promise((resolve) => setImmediate(resolve));
    // the first write is under way: these wait for it, and go together
    const waiting = [queue.run("k", "b"), queue.run("k", "c"), queue.run("k", "d")];
    await endWrites();
    expect(await first).toBe("a written");
    await endWrites();
    expect(await Promise.all(waiting)).toEqual(["b written", "c written", "d written"]);
    expect(batches).toEqual([
      ["k", ["a"]],
      ["k", ["b", "c", "d"]],
    ]);
  });

  it("starts an idle key's write at once with what was given in the same run, and other keys' writes alongside", async () => {
    const { queue, batches, endWrites } = recordingWrites();
    const given = [queue.run("k", "a"), queue.run("k", "b"), queue.run("other", "c")];
    await new Promise((resolve) => setImmediate(resolve));
    // no timer: both keys' writes started before either ended
    expect(batches).toEqual([
      ["k", ["a", "b"]],
      ["other", ["c"]],
    ]);
    await endWrites();
    expect(await Promise.all(given)).toEqual(["a written", "b written", "c written"]);
  });

  it("fails only the batch whose write failed, and writes the next one", async () => {
    const { queue, batches, endWrites } = recordingWrites((_key, items) => items.includes("a"));
    const failed = queue.run("k", "a").catch((error: Error) => error.message);
    await new Promise((resolve) => setImmediate(resolve));
    const next = queue.run("k", "b");
    await endWrites();
    expect(await failed).toBe("k refused");
    await endWrites();
    expect(await next).toBe("b written");
    expect(batches.map(([, items]) => items)).toEqual([["a"], ["b"]]);
    // the key was forgotten once written: a later item starts a write of its own
    const later = queue.run("k", "c");
    await endWrites();
    expect(await later).toBe("c written");
    expect(batches).toHaveLength(3);
  });
});
