import type { ToolResult } from "@agent-orchestrator/shared/wire";
import { describe, expect, it } from "vitest";
import { IdempotencyCache } from "./idempotency-cache.js";

const ok = (value: string): Promise<ToolResult> => Promise.resolve({ success: true, value });
const flush = () => new Promise((resolve) => setImmediate(resolve));

describe("IdempotencyCache", () => {
  it("returns the same result for a key, in flight or done", async () => {
    const cache = new IdempotencyCache({ maxEntries: 10, maxBytes: 1000 });
    const result = ok("a");
    cache.remember("k", "f", result);
    expect(cache.lookup("k")?.result).toBe(result);
    await flush();
    expect(await cache.lookup("k")?.result).toEqual({ success: true, value: "a" });
  });

  it("forgets failures so a retry runs again", async () => {
    const cache = new IdempotencyCache({ maxEntries: 10, maxBytes: 1000 });
    cache.remember("k", "f", Promise.resolve({ success: false, error: { code: "BUSY", message: "busy" } }));
    await flush();
    expect(cache.lookup("k")).toBeUndefined();
  });

  it("evicts the least recently used entry beyond maxEntries", async () => {
    const cache = new IdempotencyCache({ maxEntries: 2, maxBytes: 1000 });
    cache.remember("a", "f", ok("a"));
    cache.remember("b", "f", ok("b"));
    cache.lookup("a");
    cache.remember("c", "f", ok("c"));
    await flush();
    expect(cache.lookup("b")).toBeUndefined();
    expect(cache.lookup("a")).toBeDefined();
    expect(cache.lookup("c")).toBeDefined();
  });

  it("evicts old results beyond maxBytes", async () => {
    const cache = new IdempotencyCache({ maxEntries: 100, maxBytes: 100 });
    cache.remember("a", "f", ok("x".repeat(60)));
    await flush();
    cache.remember("b", "f", ok("y".repeat(60)));
    await flush();
    expect(cache.lookup("a")).toBeUndefined();
    expect(cache.size).toBe(1);
  });
});
