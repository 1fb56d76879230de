import { execFileSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createBmadTree, type BmadTree } from "../testing/bmad-tree.js";
import { readTextFile } from "./read-text-file.js";

describe("readTextFile", () => {
  let tree: BmadTree;
  beforeEach(async () => {
    tree = await createBmadTree();
  });
  afterEach(() => tree.cleanup());

  it("reads UTF-8 text, dropping a byte-order mark", async () => {
    await tree.write({ "a.md": "\uFEFFhé 🧪" });
    expect(await readTextFile(join(tree.root, "a.md"), 100)).toEqual({ ok: true, text: "hé 🧪" });
  });

  it("refuses a file over the cap without reading it, even a 100 MB sparse one (docs/security.md case 86)", async () => {
    const path = join(tree.root, "huge.md");
    await writeFile(path, "");
    execFileSync("truncate", ["-s", "100M", path]);
    expect(await readTextFile(path, 1024 * 1024)).toMatchObject({ ok: false, code: "FILE_TOO_LARGE" });
  });

  it("refuses invalid UTF-8", async () => {
    await writeFile(join(tree.root, "bad.md"), Buffer.from([0x3c, 0x61, 0xff, 0xfe, 0x3e]));
    expect(await readTextFile(join(tree.root, "bad.md"), 100)).toEqual({ ok: false, code: "UNREADABLE", reason: "is not valid UTF-8 text" });
  });

  it("does not hang on a FIFO", async () => {
    const path = join(tree.root, "pipe.md");
    execFileSync("mkfifo", [path]);
    expect(await readTextFile(path, 100)).toEqual({ ok: false, code: "UNREADABLE", reason: "is not a regular file" });
  });

  it("reports a missing file", async () => {
    expect(await readTextFile(join(tree.root, "none.md"), 100)).toMatchObject({ ok: false, code: "UNREADABLE" });
  });
});
