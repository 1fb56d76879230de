import { execFileSync } from "node:child_process";
import { chmod, link, mkdir, mkdtemp, rename, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runGit } from "../git/git-command.js";
import { ObjectReader } from "../git/object-reader.js";
import { stagedTree } from "./staged-changes.js";
import { editTree } from "./tree-edits.js";
import { TreeReader } from "./tree-reader.js";
import { TreeWatcher } from "./tree-watcher.js";

/*
 * The tree made from what the watcher saw must be exactly the one `git add -A` over every file and `git write-tree`
 * make (docs/repositories.md "What changed, without reading every file"): each case makes a change, makes the tree
 * from the paths the watcher reported and the tree before, and compares it with the one a full `git add -A` makes
 * in an index that, like the host's, has followed every change.
 */

let root: string;
let files: string;
let watcher: TreeWatcher;
let objects: ObjectReader;
let trees: TreeReader;
/** the files tree before the window, as the working tree's state holds it */
let base: string;

const git = (index: string, args: readonly string[], input?: string) =>
  runGit({ gitDir: path.join(root, "repo.git"), workTree: files, indexFile: path.join(root, index), cwd: files, args, ...(input === undefined ? {} : { input }) });

async function write(name: string, text: string): Promise<void> {
  await mkdir(path.dirname(path.join(files, name)), { recursive: true });
  await writeFile(path.join(files, name), text);
}

/** The tree made from the paths the watcher saw and the tree before them, or undefined when they cannot say. */
async function stagedFromWatcher(): Promise<string | undefined> {
  const changed = await watcher.changes();
  if (changed === undefined) return undefined;
  const scratchIndex = path.join(root, "scratch-index");
  const staged = await stagedTree(
    {
      git: (args, input) => git("scratch-index", args, input),
      directory: files,
      scratchIndex,
      indexed: (name) => trees.lookup(base, name),
      edit: (edits) => editTree(trees, base, edits, path.join(root, "repo.git", "objects")),
    },
    changed,
  );
  return staged?.tree;
}

/**
 * Makes the tree from what the watcher saw (or, when it cannot, reads every file as the host does: its index brought
 * to the tree before, then `git add -A`) and expects the tree a full `git add -A` makes in an index that followed
 * every change; `staged`, when given, says which of the two it must have been.
 */
async function readBack(staged?: boolean): Promise<string> {
  const made = await stagedFromWatcher();
  let incremental = made;
  if (incremental === undefined) {
    await git("index", ["read-tree", "-m", base]);
    await git("index", ["add", "-A", "--", "."]);
    incremental = (await git("index", ["write-tree"])).stdout.toString("latin1").trim();
  }
  await git("full-index", ["add", "-A", "--", "."]);
  const full = (await git("full-index", ["write-tree"])).stdout.toString("latin1").trim();
  expect(incremental).toBe(full);
  if (staged !== undefined) expect(made !== undefined).toBe(staged);
  base = full;
  return full;
}

/** The bytes of `name` in tree `tree`. */
async function blobIn(tree: string, name: string): Promise<string> {
  return (await git("index", ["cat-file", "blob", `${tree}:${name}`])).stdout.toString("latin1");
}

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), "ao-staged-changes-"));
  files = path.join(root, "tree");
  await runGit({ gitDir: path.join(root, "repo.git"), args: ["init", "--bare", "-q"] });
  objects = new ObjectReader({ gitDir: path.join(root, "repo.git") });
  const read = async (id: string) => {
    const object = await objects.read(id);
    if (!object) throw new Error(`missing ${id}`);
    return object;
  };
  trees = new TreeReader({ read, size: async (id) => (await read(id)).content.length });
  await write(".gitignore", "node_modules/\n*.log\n");
  await write("src/add.js", "export const add = (a, b) => a - b;\n");
  await write("src/lib/util.js", "export const id = (x) => x;\n");
  await write("test/add.test.js", "test\n");
  await write("README.md", "# app\n");
  // the empty tree: what the state holds before the first full read
  base = (await git("index", ["write-tree"])).stdout.toString("latin1").trim();
  watcher = await TreeWatcher.start(files, path.join(root, "watch"));
  // the first window is never trusted: the caller reads every file once
  await readBack(false);
});

afterEach(async () => {
  watcher.close();
  objects.close();
  await rm(root, { recursive: true, force: true });
});

describe("what a command changed, from the watcher", () => {
  it("stages a file written, one deleted and one renamed as a full read would", async () => {
    await write("src/add.js", "export const add = (a, b) => a + b;\n");
    await rm(path.join(files, "test/add.test.js"));
    await rename(path.join(files, "README.md"), path.join(files, "READ.md"));
    const tree = await readBack(true);
    expect((await git("index", ["ls-tree", "-r", "--name-only", tree])).stdout.toString()).toBe(".gitignore\nREAD.md\nsrc/add.js\nsrc/lib/util.js\n");
  });

  it("stages a new folder of folders written at once, without the files git ignores", async () => {
    await write("lib/deep/er/x.js", "x\n");
    await write("lib/deep/y.js", "y\n");
    await write("lib/z.log", "ignored\n");
    await write("node_modules/pkg/index.js", "ignored\n");
    const tree = await readBack(true);
    expect((await git("index", ["ls-tree", "-r", "--name-only", tree, "lib"])).stdout.toString()).toBe("lib/deep/er/x.js\nlib/deep/y.js\n");
  });

  it("stages a folder removed whole, a file become a folder, a folder become a file, a mode and a link", async () => {
    await rm(path.join(files, "src/lib"), { recursive: true });
    await rm(path.join(files, "README.md"));
    await write("README.md/index.md", "now a folder\n");
    await rm(path.join(files, "test"), { recursive: true });
    await write("test", "now a file\n");
    await chmod(path.join(files, "src/add.js"), 0o755);
    await symlink("src/add.js", path.join(files, "add-link"));
    await readBack(true);
  });

  it("stages a folder moved within the tree, and what is written in it afterwards", async () => {
    await rename(path.join(files, "src"), path.join(files, "source"));
    await readBack();
    await write("source/lib/util.js", "moved and changed\n");
    await readBack(true);
  });

  it("keeps a tracked file that an ignore rule names, as git add -A does, when its folder is read again", async () => {
    await write("logs/kept.log", "tracked although *.log is ignored\n");
    await git("full-index", ["add", "-f", "--", "logs/kept.log"]);
    base = (await git("full-index", ["write-tree"])).stdout.toString("latin1").trim();
    // that window is the force-add's, which a full `git add -A` would not make: it is taken and left aside
    await watcher.changes();
    await rename(path.join(files, "logs"), path.join(files, "old-logs"));
    await mkdir(path.join(files, "logs"));
    await write("logs/kept.log", "written again\n");
    await write("logs/new.log", "ignored\n");
    const tree = await readBack(true);
    expect((await git("index", ["ls-tree", "-r", "--name-only", tree, "logs", "old-logs"])).stdout.toString()).toBe("logs/kept.log\n");
    // and a full read after that window keeps it too, from the host's index brought to the tree first
    await write(".gitignore", "node_modules/\n*.log\n# changed\n");
    expect((await git("index", ["ls-tree", "-r", "--name-only", await readBack(false), "logs"])).stdout.toString()).toBe("logs/kept.log\n");
  });

  it("takes a file a negated rule names, but not below a folder git ignores, which git add -A never looks into", async () => {
    await write(".gitignore", "node_modules/\n*.log\n!important.log\n!node_modules/keep.js\n");
    await readBack(false);
    await write("important.log", "kept\n");
    await write("debug.log", "ignored\n");
    await write("node_modules/keep.js", "ignored with its folder\n");
    const tree = await readBack(true);
    expect((await git("index", ["ls-tree", "--name-only", tree])).stdout.toString()).toBe(".gitignore\nREADME.md\nimportant.log\nsrc\ntest\n");
  });

  it("takes a folder moved out of the tree away, when a file git ignores is made in its place", async () => {
    await write("cache/a.js", "tracked\n");
    await readBack(true);
    // from now on git ignores `cache`, which stays tracked
    await write(".gitignore", "node_modules/\n*.log\ncache\n");
    await readBack(false);
    await rename(path.join(files, "cache"), path.join(root, "away"));
    await write("cache", "an ignored file\n");
    const tree = await readBack(true);
    expect((await git("index", ["ls-tree", "-r", "--name-only", tree, "cache"])).stdout.toString()).toBe("");
  });

  it("converts line endings as git add does in the host's index: a file committed with CRLF keeps them under text=auto", async () => {
    await write("crlf.txt", "a\r\nb\r\n");
    await readBack(true);
    await write(".gitattributes", "* text=auto\n");
    await readBack(false);
    await write("crlf.txt", "a\r\nb\r\nc\r\n");
    await write("new.txt", "x\r\ny\r\n");
    await write("src/add.js", "export const add = (a, b) => a + b;\r\n");
    const tree = await readBack(true);
    expect(await blobIn(tree, "crlf.txt")).toBe("a\r\nb\r\nc\r\n");
    expect(await blobIn(tree, "new.txt")).toBe("x\ny\n");
    expect(await blobIn(tree, "src/add.js")).toBe("export const add = (a, b) => a + b;\n");
  });

  it("reads every file when a path is in a submodule's folder, which git never looks into", async () => {
    await git("full-index", ["update-index", "--add", "--cacheinfo", `160000,${"1".repeat(40)},vendor/lib`]);
    base = (await git("full-index", ["write-tree"])).stdout.toString("latin1").trim();
    await mkdir(path.join(files, "vendor", "lib"), { recursive: true });
    await watcher.changes();
    await write("vendor/lib/x.js", "the submodule's\n");
    await write("src/add.js", "changed\n");
    const tree = await readBack(false);
    expect((await git("index", ["ls-tree", "-r", tree, "vendor"])).stdout.toString()).toBe(`160000 commit ${"1".repeat(40)}\tvendor/lib\n`);
  });

  it("keeps a file a command names like the host's sync cookie (case 327)", async () => {
    await write(".aop-sync-00000000-0000-0000-0000-000000000000", "mine\n");
    const tree = await readBack(true);
    expect((await git("index", ["ls-tree", "--name-only", tree, ".aop-sync-00000000-0000-0000-0000-000000000000"])).stdout.toString()).toBe(".aop-sync-00000000-0000-0000-0000-000000000000\n");
  });

  it("never looks through a link that replaced a watched folder (case 328)", async () => {
    const outside = path.join(root, "outside");
    await mkdir(path.join(outside, "lib"), { recursive: true });
    await writeFile(path.join(outside, "lib", "util.js"), "a host file\n");
    await rm(path.join(files, "src"), { recursive: true });
    await symlink(outside, path.join(files, "src"));
    await writeFile(path.join(outside, "lib", "util.js"), "a host file, changed\n");
    const tree = await readBack();
    expect((await git("index", ["ls-tree", tree, "src"])).stdout.toString()).toMatch(/^120000 blob [0-9a-f]{40}\tsrc\n$/);
  });

  it("reads every file when an ignore file changed, a file has a second link, or the watcher was told to doubt", async () => {
    await write(".gitignore", "node_modules/\n");
    await readBack(false);

    await link(path.join(files, "src/add.js"), path.join(files, "add-hard"));
    await readBack(false);

    await write("src/add.js", "changed while the watcher was in doubt\n");
    watcher.distrust();
    await readBack(false);

    await write("vendor/repo/.git/HEAD", "ref: refs/heads/main\n");
    await readBack(false);
  });

  it("does not trust a window with more events than half of inotify's queue could hold", async () => {
    // in a folder watched from the start, so that every file made is an event
    execFileSync("sh", ["-c", "seq 9000 | sed 's/$/.txt/' | xargs touch"], { cwd: path.join(files, "src") });
    await readBack(false);
  });

  it("reads every file once a watcher is closed (a tool-runner restarted keeps no history)", async () => {
    watcher.close();
    await write("src/add.js", "changed while no watcher ran\n");
    watcher = await TreeWatcher.start(files, path.join(root, "watch"));
    await readBack(false);
  });
});
