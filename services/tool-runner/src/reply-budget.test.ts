import { describe, expect, it } from "vitest";
import { fitContentsToBudget, jsonBytes, truncateToJsonBytes } from "./reply-budget.js";

describe("truncateToJsonBytes", () => {
  it("keeps text that fits", () => {
    expect(truncateToJsonBytes("hello", 5)).toBe("hello");
  });

  it("counts JSON escaping, not characters", () => {
    const quoted = '"'.repeat(100);
    const cut = truncateToJsonBytes(quoted, 100);
    expect(cut).toHaveLength(50);
  });

  it("never splits a surrogate pair", () => {
    const cut = truncateToJsonBytes("😀😀😀", 6);
    expect(cut).toBe("😀");
  });
});

describe("fitContentsToBudget", () => {
  it("shrinks the largest content first until the reply fits, and marks it", () => {
    const reply = {
      success: true,
      files: [
        { path: "a", content: "a".repeat(1000), truncated: false },
        { path: "b", content: "b".repeat(100), truncated: false },
      ],
    };
    fitContentsToBudget(reply, reply.files, 800);
    expect(jsonBytes(reply)).toBeLessThanOrEqual(800);
    expect(reply.files[0]?.truncated).toBe(true);
    expect(reply.files[1]).toEqual({ path: "b", content: "b".repeat(100), truncated: false });
  });

  it("leaves a reply that fits alone", () => {
    const reply = { content: "short", truncated: false };
    fitContentsToBudget(reply, [reply], 1000);
    expect(reply).toEqual({ content: "short", truncated: false });
  });

  it("fails with PAYLOAD_TOO_LARGE when nothing is left to cut", () => {
    const reply = { path: "x".repeat(100), content: "", truncated: false };
    expect(() => fitContentsToBudget(reply, [reply], 10)).toThrow(expect.objectContaining({ code: "PAYLOAD_TOO_LARGE" }));
  });
});
