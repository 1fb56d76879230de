import { mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { testGit } from "../testing/repository-fixture.js";
import { unracyIndex } from "./unracy-index.js";

const folders: string[] = [];

afterEach(async () => {
  await Promise.all(folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })));
});

/** A repository of `count` files checked out just now by `read-tree -u` into a fresh index, as a new checkout is. */
async function freshCheckout(count: number): Promise<{ folder: string; index: string; git: (args: readonly string[]) => string }> {
  const folder = await mkdtemp(path.join(tmpdir(), "ao-unracy-"));
  folders.push(folder);
  await Promise.all(Array.from({ length: count }, (_, at) => writeFile(path.join(folder, `file-${at}.txt`), `content ${at}\n`)));
  testGit(folder, ["init", "-q"]);
  testGit(folder, ["add", "-A"]);
  testGit(folder, ["commit", "-qm", "files"]);
  await rm(path.join(folder, ".git", "index"));
  await Promise.all((await readdir(folder)).filter((name) => name !== ".git").map((name) => rm(path.join(folder, name))));
  const index = path.join(folder, ".git", "index");
  testGit(folder, ["read-tree", "--reset", "-u", "HEAD"]);
  return { folder, index, git: (args) => testGit(folder, args) };
}

async function mtimeSeconds(file: string): Promise<number> {
  return Math.floor((await stat(file)).mtimeMs / 1000);
}

describe("a fresh checkout's index", () => {
  it("is dated in a later second than every file the checkout wrote, so git trusts their stat data", async () => {
    const { folder, index, git } = await freshCheckout(50);
    await unracyIndex(index);
    const indexSecond = await mtimeSeconds(index);
    for (const name of (await readdir(folder)).filter((entry) => entry !== ".git")) expect(await mtimeSeconds(path.join(folder, name))).toBeLessThan(indexSecond);
    expect(git(["status", "--porcelain"])).toBe("");
  });

  it("still lets git see a file changed afterwards in the same size", async () => {
    const { folder, index, git } = await freshCheckout(3);
    await unracyIndex(index);
    await writeFile(path.join(folder, "file-1.txt"), "changed 1\n");
    expect(git(["status", "--porcelain"])).toBe(" M file-1.txt\n");
  });
});
