import { describe, expect, it } from "vitest";
import { ContentCache } from "./content-cache.js";

const bytes = (n: number) => new Uint8Array(n);

describe("ContentCache", () => {
  it("keeps contents within its budget, dropping the least recently used first", () => {
    const cache = new ContentCache(10);
    cache.set("a", bytes(4));
    cache.set("b", bytes(4));
    expect(cache.get("a")).toBeDefined();
    cache.set("c", bytes(4));
    expect(cache.has("b")).toBe(false);
    expect(cache.has("a")).toBe(true);
    expect(cache.has("c")).toBe(true);
    expect(cache.size.bytes).toBe(8);
  });

  it("does not keep a content larger than the whole budget", () => {
    const cache = new ContentCache(10);
    cache.set("big", bytes(11));
    expect(cache.has("big")).toBe(false);
    expect(cache.size.bytes).toBe(0);
  });
});
