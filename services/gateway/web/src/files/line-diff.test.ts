import { diffLines } from "diff";
import { describe, expect, it } from "vitest";
import { lineDiff } from "./line-diff.js";

const numbered = (count: number): string => Array.from({ length: count }, (_, index) => `line ${index + 1}\n`).join("");

describe("lineDiff", () => {
  it("numbers added, removed and unchanged lines in the old and the new text", () => {
    const diff = lineDiff(diffLines, "# Brief\nold idea\nend\n", "# Brief\nnew idea\nmore\nend\n");
    expect(diff).toEqual({
      added: 2,
      removed: 1,
      rows: [
        { kind: "same", text: "# Brief", oldLine: 1, newLine: 1 },
        { kind: "removed", text: "old idea", oldLine: 2 },
        { kind: "added", text: "new idea", newLine: 2 },
        { kind: "added", text: "more", newLine: 3 },
        { kind: "same", text: "end", oldLine: 3, newLine: 4 },
      ],
    });
  });

  it("leaves out long unchanged stretches but keeps three lines of context beside each change", () => {
    const before = numbered(20);
    const after = before.replace("line 10\n", "line ten\n");
    const { rows } = lineDiff(diffLines, before, after);
    expect(rows.map((row) => (row.kind === "skipped" ? `… ${row.count}` : `${row.kind} ${row.text}`))).toEqual([
      "… 6",
      "same line 7",
      "same line 8",
      "same line 9",
      "removed line 10",
      "added line ten",
      "same line 11",
      "same line 12",
      "same line 13",
      "… 7",
    ]);
  });

  it("compares texts with and without a final line break, and CRLF, line by line", () => {
    expect(lineDiff(diffLines, "a\r\nb", "a\r\nb\r\nc\r\n").rows.filter((row) => row.kind === "added")).toEqual([
      { kind: "added", text: "b", newLine: 2 },
      { kind: "added", text: "c", newLine: 3 },
    ]);
  });
});
