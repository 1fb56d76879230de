import { describe, expect, it } from "vitest";
import { truncateMiddle } from "./truncate-middle.js";

describe("truncateMiddle", () => {
  it("leaves short text alone", () => {
    expect(truncateMiddle("short", 100)).toBe("short");
  });

  it("keeps head and tail within the budget and says how many bytes were left out", () => {
    const text = "a".repeat(5_000) + "b".repeat(5_000);
    const cut = truncateMiddle(text, 1_000);
    expect(cut.length).toBeLessThanOrEqual(1_000);
    expect(cut.startsWith("aaaa")).toBe(true);
    expect(cut.endsWith("bbbb")).toBe(true);
    expect(cut).toMatch(/\[\.\.\. \d+ bytes omitted \.\.\.\]/);
  });

  it("never splits a multi-byte character", () => {
    const cut = truncateMiddle("💡".repeat(2_000), 500);
    expect(cut).not.toContain("\uFFFD");
    expect(Buffer.from(cut, "utf8").toString("utf8")).toBe(cut);
    expect(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/.test(cut)).toBe(false);
  });
});
