import { describe, expect, it } from "vitest";
import { entryPath } from "./entry-path.js";

describe("entryPath", () => {
  it.each([
    ["src/index.ts", 0, "src/index.ts"],
    ["./src/index.ts", 0, "src/index.ts"],
    ["././src/", 0, "src"],
    ["src/lib/", 0, "src/lib"],
    ["./", 0, undefined],
    ["project-1.0/src/index.ts", 1, "src/index.ts"],
    ["./project-1.0/src/index.ts", 1, "src/index.ts"],
    ["project-1.0/", 1, undefined],
    ["a/b", 2, undefined],
    ["é/日本語.md", 0, "é/日本語.md"],
  ])("reads %j (strip %i) as %j", (name, strip, path) => {
    expect(entryPath(name, strip)).toBe(path);
  });

  it.each([
    ["../evil.txt", "has a .. in its path"],
    ["src/../../evil.txt", "has a .. in its path"],
    ["/etc/passwd", "is an absolute path"],
    ["C:\\evil.txt", "is an absolute path"],
    ["C:evil.txt", "is an absolute path"],
    ["\\\\server\\share\\evil.txt", "is an absolute path"],
    ["src\\evil.txt", "has a backslash"],
    ["a//b", "has an empty name"],
    ["", "has an empty name"],
    ["a/./b", "has a . in the middle"],
    ["nul\u0000.txt", "control or bidi character"],
    ["del\u007f.txt", "control or bidi character"],
    ["csi\u009b.txt", "control or bidi character"],
    ["gnp.\u202Etxt", "control or bidi character"],
    ["broken\uFFFD.txt", "not valid UTF-8"],
    [`${"a".repeat(256)}/x`, "has a name longer than 255 bytes"],
    [`${"é".repeat(128)}`, "has a name longer than 255 bytes"],
    [`${"a/".repeat(512)}x`, "has a path longer than 1024 characters"],
  ])("refuses %j: %s", (name, reason) => {
    expect(() => entryPath(name, 0)).toThrow(expect.objectContaining({ code: "ARCHIVE_REFUSED", message: expect.stringContaining(reason) }));
  });

  it("checks the names a strip removes too: ../x is refused with strip 1", () => {
    expect(() => entryPath("../x", 1)).toThrow(expect.objectContaining({ code: "ARCHIVE_REFUSED" }));
  });

  it("names the entry escaped, and cuts a long one", () => {
    expect(() => entryPath("evil\u001b[2J\u202E.txt", 0)).toThrow('entry "evil\\u001b[2J\\u202e.txt" has a name with a control or bidi character');
    const error = (() => {
      try {
        entryPath("a/".repeat(5000), 0);
      } catch (caught) {
        return caught as Error;
      }
      throw new Error("not refused");
    })();
    expect(error.message.length).toBeLessThan(400);
  });
});
