import { rename, symlink, utimes } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createBmadTree, type BmadTree } from "../testing/bmad-tree.js";
import type { ParseOutcome } from "@agent-orchestrator/shared/bmad";
import { FileParseCache } from "./file-parse-cache.js";

/** A parser that counts its calls: "ok:<value>" parses, anything else fails. */
function countingParser() {
  const counter = { calls: 0 };
  const parse = (text: string): ParseOutcome<string> => {
    counter.calls++;
    return text.startsWith("ok:") ? { ok: true, value: text.slice(3) } : { ok: false, reason: `bad content "${text}"` };
  };
  return { counter, parse };
}

describe("FileParseCache", () => {
  let tree: BmadTree;
  let folder: string;
  beforeEach(async () => {
    tree = await createBmadTree();
    await tree.write({ "bundle/a.md": "ok:first" });
    folder = join(tree.root, "bundle");
  });
  afterEach(() => tree.cleanup());

  const load = (cache: FileParseCache<string>, name = "a.md") => cache.load(`bundle/${name}`, join(folder, name), folder);

  it("parses once and answers from memory while mtime, size and inode are unchanged", async () => {
    const { counter, parse } = countingParser();
    const cache = new FileParseCache(parse, 1000);
    expect(await load(cache)).toEqual({ ok: true, value: "first" });
    expect(await load(cache)).toEqual({ ok: true, value: "first" });
    expect(counter.calls).toBe(1);
  });

  it("re-parses a changed file", async () => {
    const { counter, parse } = countingParser();
    const cache = new FileParseCache(parse, 1000);
    await load(cache);
    await tree.write({ "bundle/a.md": "ok:second" });
    expect(await load(cache)).toEqual({ ok: true, value: "second" });
    expect(counter.calls).toBe(2);
  });

  it("keeps serving the last good value after a bad edit, marked stale, until the file is fixed", async () => {
    const cache = new FileParseCache(countingParser().parse, 1000);
    await load(cache);
    await tree.write({ "bundle/a.md": "broken" });
    expect(await load(cache)).toEqual({ ok: true, value: "first", stale: { reason: 'bad content "broken"' } });
    await tree.write({ "bundle/a.md": "ok:fixed" });
    expect(await load(cache)).toEqual({ ok: true, value: "fixed" });
  });

  it("keeps the last good value when the file grows over the cap", async () => {
    const cache = new FileParseCache(countingParser().parse, 20);
    await load(cache);
    await tree.write({ "bundle/a.md": `ok:${"x".repeat(50)}` });
    expect(await load(cache)).toMatchObject({ ok: true, value: "first", stale: { reason: expect.stringContaining("20-byte limit") } });
  });

  it("fails a new bad file: there is no last good value to fall back on", async () => {
    await tree.write({ "bundle/b.md": "broken" });
    const cache = new FileParseCache(countingParser().parse, 1000);
    expect(await load(cache, "b.md")).toEqual({ ok: false, code: "INVALID", reason: 'bad content "broken"' });
  });

  it("forgets a deleted file, so a new file at that path does not inherit its last good value", async () => {
    const cache = new FileParseCache(countingParser().parse, 1000);
    await load(cache);
    await tree.remove("bundle/a.md");
    expect(await load(cache)).toEqual({ ok: false, code: "FILE_MISSING", reason: "is missing" });
    await tree.write({ "bundle/a.md": "broken" });
    expect((await load(cache)).ok).toBe(false);
  });

  it("drops entries not loaded during a scan", async () => {
    const { counter, parse } = countingParser();
    const cache = new FileParseCache(parse, 1000);
    await load(cache);
    cache.beginScan();
    cache.endScan();
    await load(cache);
    expect(counter.calls).toBe(2);
  });

  it("rejects a symlink that leads out of the folder, and forgets the last good value (docs/security.md case 85)", async () => {
    await tree.write({ "outside/secret.md": "ok:secret" });
    const cache = new FileParseCache(countingParser().parse, 1000);
    await load(cache);
    await tree.remove("bundle/a.md");
    await symlink(join(tree.root, "outside/secret.md"), join(folder, "a.md"));
    expect(await load(cache)).toEqual({ ok: false, code: "PATH_REJECTED", reason: "is a symbolic link that leaves its folder" });
  });

  it("follows a symlink that stays inside the folder", async () => {
    await symlink(join(folder, "a.md"), join(folder, "alias.md"));
    const cache = new FileParseCache(countingParser().parse, 1000);
    expect(await load(cache, "alias.md")).toEqual({ ok: true, value: "first" });
  });

  it("notices an editor's atomic save (temp file renamed over) of the same size and mtime, by its inode", async () => {
    const cache = new FileParseCache(countingParser().parse, 1000);
    const when = new Date("2025-01-01T00:00:00Z");
    await utimes(join(folder, "a.md"), when, when);
    await load(cache);
    await tree.write({ "bundle/.a.md.swp": "ok:other" }); // same size as "ok:first"
    await utimes(join(folder, ".a.md.swp"), when, when);
    await rename(join(folder, ".a.md.swp"), join(folder, "a.md"));
    expect(await load(cache)).toEqual({ ok: true, value: "other" });
  });
});
