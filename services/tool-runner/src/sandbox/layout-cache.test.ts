import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LayoutCache, layoutMaxAgeMs, layoutMinRefreshMs } from "./layout-cache.js";

let root: string;
beforeEach(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), "layout-cache-")));
  await mkdir(path.join(root, "_bmad"));
});
afterEach(() => rm(root, { recursive: true, force: true }));

describe("LayoutCache", () => {
  it("keeps the layout until it is stale, then detects it again", async () => {
    let now = 0;
    const cache = new LayoutCache(root, () => now);
    expect((await cache.current()).trees).toEqual([path.join(root, "_bmad")]);
    await mkdir(path.join(root, ".bmad-core"));
    now = layoutMaxAgeMs - 1;
    expect((await cache.current()).trees).toHaveLength(1);
    now = layoutMaxAgeMs;
    expect((await cache.current()).trees).toHaveLength(2);
  });

  it("refreshes on demand, but not more than once per interval", async () => {
    let now = 0;
    const cache = new LayoutCache(root, () => now);
    await cache.current();
    await mkdir(path.join(root, ".claude/skills"), { recursive: true });
    expect((await cache.refresh()).skillFolders).toEqual([]);
    now = layoutMinRefreshMs;
    expect((await cache.refresh()).skillFolders).toEqual([path.join(root, ".claude/skills")]);
  });
});
