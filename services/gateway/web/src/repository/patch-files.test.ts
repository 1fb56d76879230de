import { describe, expect, it } from "vitest";
import { patchFiles } from "./patch-files.js";

// what `git diff-tree -p` writes for a chat's work (docs/repositories.md "A chat's work")
const patch = [
  "diff --git a/docs/notes.md b/docs/notes.md",
  "new file mode 100644",
  "index 0000000..814f4a4",
  "--- /dev/null",
  "+++ b/docs/notes.md",
  "@@ -0,0 +1,2 @@",
  "+one",
  "++++ not a header",
  "diff --git a/src/add.js b/src/add.js",
  "index 1111111..2222222 100644",
  "--- a/src/add.js",
  "+++ b/src/add.js",
  "@@ -1,2 +1,2 @@",
  " export function add(a, b) {",
  "-  return a - b;",
  "+  return a + b;",
  "@@ -10,1 +10,1 @@",
  "-old",
  "+new",
  "diff --git a/gone.txt b/gone.txt",
  "deleted file mode 100644",
  "--- a/gone.txt",
  "+++ /dev/null",
  "@@ -1 +0,0 @@",
  "-bye",
  'diff --git "a/caf\\303\\251.png" "b/caf\\303\\251.png"',
  "index 3333333..4444444 100644",
  'Binary files "a/caf\\303\\251.png" and "b/caf\\303\\251.png" differ',
  "",
].join("\n");

describe("a unified diff's files", () => {
  it("numbers each file's lines, marks the unchanged ones between hunks, and names added, deleted and binary files", () => {
    const files = patchFiles(patch);
    expect(files.map((file) => [file.path, file.added, file.removed, file.binary])).toEqual([
      ["docs/notes.md", 2, 0, false],
      ["src/add.js", 2, 2, false],
      ["gone.txt", 0, 1, false],
      ["café.png", 0, 0, true],
    ]);
    expect(files[0]?.rows).toEqual([
      { kind: "added", text: "one", newLine: 1 },
      { kind: "added", text: "+++ not a header", newLine: 2 },
    ]);
    expect(files[1]?.rows).toEqual([
      { kind: "same", text: "export function add(a, b) {", oldLine: 1, newLine: 1 },
      { kind: "removed", text: "  return a - b;", oldLine: 2 },
      { kind: "added", text: "  return a + b;", newLine: 2 },
      { kind: "skipped", count: 7 },
      { kind: "removed", text: "old", oldLine: 10 },
      { kind: "added", text: "new", newLine: 10 },
    ]);
  });
});
