import { describe, expect, it } from "vitest";
import { countLines, lineRange } from "./line-range.js";

const text = "one\ntwo\nthree\nfour\n";

describe("lineRange", () => {
  it("returns the lines asked for with their line breaks and the file's total", () => {
    expect(lineRange(text, "p", 2, 2)).toEqual({ content: "two\nthree\n", total_lines: 4, start_line: 2, end_line: 3 });
  });

  it("reads to the end without a limit, and stops at the end with a limit past it", () => {
    expect(lineRange(text, "p", 3).content).toBe("three\nfour\n");
    expect(lineRange(text, "p", 4, 10)).toMatchObject({ content: "four\n", end_line: 4 });
  });

  it("joins consecutive ranges back into the file, a last line without a break included", () => {
    const unterminated = "a\nb\nc";
    expect(lineRange(unterminated, "p", 1, 2).content + lineRange(unterminated, "p", 3, 2).content).toBe(unterminated);
    expect(countLines(unterminated)).toBe(3);
  });

  it("refuses an offset past the last line with the file's length", () => {
    expect(() => lineRange(text, "{project-root}/prd.md", 5)).toThrow("offset 5 is past the end of {project-root}/prd.md: it has 4 lines");
    expect(lineRange("", "p", 1)).toEqual({ content: "", total_lines: 0, start_line: 1, end_line: 0 });
  });
});
