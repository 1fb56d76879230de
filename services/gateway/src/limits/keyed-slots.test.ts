import { describe, expect, it } from "vitest";
import { KeyedSlots } from "./keyed-slots.js";

describe("slots per key", () => {
  it("gives at most `limit` per key, takes each back once, and forgets a key that holds none", () => {
    const slots = new KeyedSlots(2);
    const first = slots.take("a");
    const second = slots.take("a");
    expect(first && second).toBeDefined();
    expect(slots.take("a")).toBeUndefined();
    expect(slots.take("b")).toBeDefined();
    first?.();
    first?.();
    expect(slots.count("a")).toBe(1);
    expect(slots.take("a")).toBeDefined();
    expect(slots.take("a")).toBeUndefined();
  });
});
