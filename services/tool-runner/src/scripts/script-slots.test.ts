import { describe, expect, it } from "vitest";
import { ScriptSlots } from "./script-slots.js";

function deferred() {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

describe("ScriptSlots", () => {
  it("runs one session's scripts one after the other", async () => {
    const slots = new ScriptSlots(4);
    const order: string[] = [];
    const gate = deferred();
    const first = slots.run("s1", async () => {
      order.push("first start");
      await gate.promise;
      order.push("first end");
    });
    const second = slots.run("s1", async () => void order.push("second"));
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(["first start"]);
    gate.resolve();
    await Promise.all([first, second]);
    expect(order).toEqual(["first start", "first end", "second"]);
  });

  it("runs other sessions alongside, up to the limit, then queues, then answers BUSY", async () => {
    const slots = new ScriptSlots(1, 1);
    const gate = deferred();
    let running = 0;
    let most = 0;
    const work = async () => {
      most = Math.max(most, ++running);
      await gate.promise;
      running--;
    };
    const accepted = [slots.run("a", work), slots.run("b", work)];
    await expect(slots.run("c", work)).rejects.toMatchObject({ code: "BUSY" });
    gate.resolve();
    await Promise.all(accepted);
    expect(most).toBe(1);
  });

  it("frees the slot when a run fails", async () => {
    const slots = new ScriptSlots(1, 0);
    await expect(slots.run("a", () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    await expect(slots.run("a", () => Promise.resolve("ok"))).resolves.toBe("ok");
  });
});
