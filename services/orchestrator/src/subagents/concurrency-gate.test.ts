import { describe, expect, it } from "vitest";
import { ConcurrencyGate } from "./concurrency-gate.js";

describe("ConcurrencyGate", () => {
  it("lets `limit` in at once and the next in order when one leaves", async () => {
    const gate = new ConcurrencyGate(2);
    const signal = new AbortController().signal;
    const first = await gate.enter(signal);
    await gate.enter(signal);
    const entered: string[] = [];
    const third = gate.enter(signal).then((leave) => (entered.push("third"), leave));
    const fourth = gate.enter(signal).then((leave) => (entered.push("fourth"), leave));
    await Promise.resolve();
    expect(entered).toEqual([]);
    first();
    first();
    (await third)();
    await fourth;
    expect(entered).toEqual(["third", "fourth"]);
  });

  it("takes a waiter whose signal aborts out of the line with the signal's reason", async () => {
    const gate = new ConcurrencyGate(1);
    const leave = await gate.enter(new AbortController().signal);
    const controller = new AbortController();
    const waiting = gate.enter(controller.signal);
    controller.abort(new Error("cancelled"));
    await expect(waiting).rejects.toThrow("cancelled");
    leave();
    const again = await gate.enter(new AbortController().signal);
    expect(again).toBeTypeOf("function");
  });
});
