import { describe, expect, it } from "vitest";
import { fitMarkdown } from "./fit-markdown.js";

const byteLength = (text: string): number => Buffer.byteLength(text, "utf8");
const note = (limit: number): string => `\n\n<!-- cut here: the Markdown form of this document is longer than its limit of ${limit} bytes -->\n`;

describe("fitMarkdown", () => {
  it("leaves Markdown within the limit as it is", () => {
    expect(fitMarkdown("# Title\n", 8, false)).toBe("# Title\n");
  });

  it("cuts longer Markdown with a note, both within the limit", () => {
    const limit = note(200).length + 10;
    const fitted = fitMarkdown("a".repeat(500), limit, false);
    expect(fitted).toBe("a".repeat(10) + note(limit));
    expect(byteLength(fitted)).toBe(limit);
  });

  it("never splits a character", () => {
    const limit = 201;
    const room = limit - byteLength(note(limit));
    expect(room % 3).not.toBe(0);
    expect(room % 4).not.toBe(0);
    // "€" is three bytes, "😀" four (two UTF-16 units): the room keeps whole ones only
    expect(fitMarkdown("€".repeat(100), limit, false)).toBe("€".repeat(Math.floor(room / 3)) + note(limit));
    expect(fitMarkdown("😀".repeat(100), limit, false)).toBe("😀".repeat(Math.floor(room / 4)) + note(limit));
  });

  it("adds the note to Markdown already cut short, even when it fits", () => {
    expect(fitMarkdown("page one", 1000, true)).toBe(`page one${note(1000)}`);
  });

  it("cuts without a note when the limit is smaller than the note", () => {
    expect(fitMarkdown("abcdefghij", 4, false)).toBe("abcd");
  });
});
