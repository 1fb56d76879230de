import { describe, expect, it } from "vitest";
import { SandboxSlots } from "./sandbox-slots.js";

function deferred() {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

describe("SandboxSlots", () => {
  it("runs one session's scripts one after the other", async () => {
    const slots = new SandboxSlots("script", 4);
    const order: string[] = [];
    const gate = deferred();
    const first = slots.run("s1", "alice", async () => {
      order.push("first start");
      await gate.promise;
      order.push("first end");
    });
    const second = slots.run("s1", "alice", async () => void order.push("second"));
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(["first start"]);
    gate.resolve();
    await Promise.all([first, second]);
    expect(order).toEqual(["first start", "first end", "second"]);
  });

  it("runs other sessions alongside, up to the limit, then queues, then answers BUSY", async () => {
    const slots = new SandboxSlots("script", 1, 4, 1);
    const gate = deferred();
    let running = 0;
    let most = 0;
    const work = async () => {
      most = Math.max(most, ++running);
      await gate.promise;
      running--;
    };
    const accepted = [slots.run("a", "alice", work), slots.run("b", "bob", work)];
    await expect(slots.run("c", "carol", work)).rejects.toMatchObject({ code: "BUSY" });
    gate.resolve();
    await Promise.all(accepted);
    expect(most).toBe(1);
  });

  it("case 102: one user's runs past their share are refused and say so, while another user's run still gets a slot", async () => {
    const slots = new SandboxSlots("script", 4, 2);
    const gate = deferred();
    const held = [slots.run("a1", "alice", () => gate.promise), slots.run("a2", "alice", () => gate.promise)];
    await expect(slots.run("a3", "alice", () => Promise.resolve())).rejects.toMatchObject({
      code: "BUSY",
      message: expect.stringContaining("at most 2 per user"),
    });
    await expect(slots.run("b1", "bob", () => Promise.resolve("bob ran"))).resolves.toBe("bob ran");
    gate.resolve();
    await Promise.all(held);
    await expect(slots.run("a3", "alice", () => Promise.resolve("alice again"))).resolves.toBe("alice again");
  });

  it("gives each running run its own slot number, and a freed number to the next", async () => {
    const slots = new SandboxSlots("script", 2);
    const gate = deferred();
    const seen: number[] = [];
    const hold = (slot: number) => {
      seen.push(slot);
      return gate.promise;
    };
    const running = [slots.run("a", "alice", hold), slots.run("b", "bob", hold)];
    const waiting = slots.run("c", "carol", async (slot) => void seen.push(slot));
    await new Promise((resolve) => setImmediate(resolve));
    expect([...seen].sort()).toEqual([0, 1]);
    gate.resolve();
    await Promise.all([...running, waiting]);
    expect(seen).toHaveLength(3);
    expect([0, 1]).toContain(seen[2]);
  });

  it("frees the slot when a run fails", async () => {
    const slots = new SandboxSlots("script", 1, 1, 0);
    await expect(slots.run("a", "alice", () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    await expect(slots.run("a", "alice", () => Promise.resolve("ok"))).resolves.toBe("ok");
  });
});
