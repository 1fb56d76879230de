import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runGit } from "./git-command.js";
import { encodeIndex, readIndex } from "./index-file.js";

let root: string;
let files: string;

const git = (args: readonly string[], index = "index") =>
  runGit({ gitDir: path.join(root, "repo.git"), workTree: files, indexFile: path.join(root, index), cwd: files, args });

/** `git ls-files -s -z`'s lines for what readIndex found. */
function staged(content: ReturnType<typeof readIndex>): string {
  return (content?.entries ?? []).map((entry) => `${entry.mode.toString(8)} ${entry.id} ${entry.stage}\t${entry.path}\0`).join("");
}

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), "ao-index-file-"));
  files = path.join(root, "tree");
  await runGit({ gitDir: path.join(root, "repo.git"), args: ["init", "--bare", "-q"] });
  await mkdir(path.join(files, "src", "deep"), { recursive: true });
  await writeFile(path.join(files, "src", "deep", "a.js"), "a\n");
  await writeFile(path.join(files, "src", "b.js"), "b\n", { mode: 0o755 });
  await writeFile(path.join(files, `${"long-name-".repeat(20)}.txt`), "a name of 204 bytes\n");
  await symlink("src/b.js", path.join(files, "link"));
  await writeFile(path.join(files, "é.md"), "x\n");
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("an index file read in process", () => {
  it.each([2, 3, 4])("reads the entries git wrote in version %i, and the cache tree's root once write-tree made it", async (version) => {
    await git(["add", "-A"]);
    await git(["update-index", "--index-version", String(version)]);
    if (version === 3) {
      // an entry with the extended flags version 3 adds
      await writeFile(path.join(files, "later.txt"), "later\n");
      await git(["add", "--intent-to-add", "--", "later.txt"]);
    }
    const listed = (await git(["ls-files", "-s", "-z"])).stdout.toString("utf8");
    const before = readIndex(await readFile(path.join(root, "index")));
    expect(staged(before)).toBe(listed);
    const tree = (await git(["write-tree"])).stdout.toString("latin1").trim();
    if (version !== 3) {
      const bytes = await readFile(path.join(root, "index"));
      expect(readIndex(bytes)?.cacheTree).toBe(tree);
      // the entries only stepped over, as the host reads a command's index
      expect(readIndex(bytes, false)).toEqual({ entries: [], cacheTree: tree });
    }
  });

  it("has no cache tree root once a path below it changed, and refuses a damaged file or a split index", async () => {
    await git(["add", "-A"]);
    await git(["write-tree"]);
    await writeFile(path.join(files, "src", "deep", "a.js"), "changed\n");
    await git(["update-index", "--", "src/deep/a.js"]);
    const bytes = await readFile(path.join(root, "index"));
    expect(readIndex(bytes)?.cacheTree).toBeUndefined();
    const damaged = Buffer.from(bytes);
    damaged[20] = (damaged[20] ?? 0) ^ 1;
    expect(readIndex(damaged)).toBeUndefined();
    await git(["update-index", "--split-index"]);
    expect(readIndex(await readFile(path.join(root, "index")))).toBeUndefined();
  });

  it("writes an index git reads, its entries sorted as git sorts them", async () => {
    await git(["add", "-A"]);
    const entries = readIndex(await readFile(path.join(root, "index")))?.entries ?? [];
    await writeFile(path.join(root, "made"), encodeIndex([...entries].reverse()));
    expect((await git(["ls-files", "-s"], "made")).stdout.toString("utf8")).toBe((await git(["ls-files", "-s"])).stdout.toString("utf8"));
    expect((await git(["write-tree"], "made")).stdout.toString()).toBe((await git(["write-tree"])).stdout.toString());
  });
});
