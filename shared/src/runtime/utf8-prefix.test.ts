import { describe, expect, it } from "vitest";
import { utf8PrefixEnd } from "./utf8-prefix.js";

describe("utf8PrefixEnd", () => {
  const bytes = new TextEncoder().encode("aé€😀");

  it("keeps a limit that falls between characters, and the whole when the limit is past the end", () => {
    expect(utf8PrefixEnd(bytes, 1)).toBe(1);
    expect(utf8PrefixEnd(bytes, 3)).toBe(3);
    expect(utf8PrefixEnd(bytes, 100)).toBe(bytes.length);
  });

  it("steps back to the start of a character the limit would cut", () => {
    expect(utf8PrefixEnd(bytes, 2)).toBe(1);
    expect(utf8PrefixEnd(bytes, 5)).toBe(3);
    expect(utf8PrefixEnd(bytes, 9)).toBe(6);
  });

  it("treats a negative limit as none", () => {
    expect(utf8PrefixEnd(bytes, -5)).toBe(0);
  });
});
