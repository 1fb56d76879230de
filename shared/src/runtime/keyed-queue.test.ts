import { describe, expect, it } from "vitest";
import { KeyedQueue } from "./keyed-queue.js";

describe("KeyedQueue", () => {
  it("runs one key's work in order, one at a time, and goes on after a failure", async () => {
    const queue = new KeyedQueue();
    const log: string[] = [];
    const step = (name: string, fail = false) => async () => {
      log.push(`${name} start`);
      await new Promise((resolve) => setImmediate(resolve));
      log.push(`${name} end`);
      if (fail) throw new Error(name);
      return name;
    };
    const results = await Promise.allSettled([queue.run("k", step("a", true)), queue.run("k", step("b")), queue.run("other", step("c"))]);
    expect(results.map((result) => result.status)).toEqual(["rejected", "fulfilled", "fulfilled"]);
    expect(log.indexOf("b start")).toBeGreaterThan(log.indexOf("a end"));
    expect(log.indexOf("c start")).toBeLessThan(log.indexOf("a end"));
  });
});
