import { execFileSync } from "node:child_process";
import { chmod, link, mkdir, mkdtemp, rename, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runGit } from "../git/git-command.js";
import { stageChanges } from "./staged-changes.js";
import { TreeWatcher } from "./tree-watcher.js";

/*
 * The watcher and the staging of what it saw must leave the host's index exactly as `git add -A` over every file
 * would (docs/repositories.md "What changed, without reading every file"): each case makes a change, stages what
 * the watcher reported, and compares the tree with the one a full `git add -A` makes in an index of its own.
 */

let root: string;
let files: string;
let watcher: TreeWatcher;

const git = (index: string, args: readonly string[], input?: string) =>
  runGit({ gitDir: path.join(root, "repo.git"), workTree: files, indexFile: path.join(root, index), cwd: files, args, ...(input === undefined ? {} : { input }) });

async function write(name: string, text: string): Promise<void> {
  await mkdir(path.dirname(path.join(files, name)), { recursive: true });
  await writeFile(path.join(files, name), text);
}

/** What the incremental index holds at `name`, as the host reads it from the files tree the index was made from. */
async function indexed(name: string): Promise<"file" | "folder" | "none"> {
  const listed = (await git("index", ["--literal-pathspecs", "ls-files", "-z", "--", name])).stdout.toString("utf8").split("\0");
  return listed.includes(name) ? "file" : listed.some((one) => one.startsWith(`${name}/`)) ? "folder" : "none";
}

/**
 * Stages what the watcher saw into the incremental index (or reads every file when it answers so) and expects the
 * tree a full `git add -A` makes in an index of its own; `staged`, when given, says which of the two it must have been.
 */
async function readBack(staged?: boolean): Promise<void> {
  const result = await trees();
  expect(result.incremental).toBe(result.full);
  if (staged !== undefined) expect(result.staged).toBe(staged);
}

async function trees(): Promise<{ staged: boolean; incremental: string; full: string }> {
  const changed = await watcher.changes();
  const staged = changed !== undefined && (await stageChanges((args, input) => git("index", args, input), files, changed, indexed));
  if (!staged) await git("index", ["add", "-A", "--", "."]);
  await rm(path.join(root, "full-index"), { force: true });
  await git("full-index", ["add", "-A", "--", "."]);
  const tree = async (index: string) => (await git(index, ["write-tree"])).stdout.toString("latin1").trim();
  return { staged, incremental: await tree("index"), full: await tree("full-index") };
}

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), "ao-staged-changes-"));
  files = path.join(root, "tree");
  await runGit({ gitDir: path.join(root, "repo.git"), args: ["init", "--bare", "-q"] });
  await write(".gitignore", "node_modules/\n*.log\n");
  await write("src/add.js", "export const add = (a, b) => a - b;\n");
  await write("src/lib/util.js", "export const id = (x) => x;\n");
  await write("test/add.test.js", "test\n");
  await write("README.md", "# app\n");
  watcher = await TreeWatcher.start(files, path.join(root, "watch"));
  // the first window is never trusted: the caller reads every file once
  await readBack(false);
});

afterEach(async () => {
  watcher.close();
  await rm(root, { recursive: true, force: true });
});

describe("what a command changed, from the watcher", () => {
  it("stages a file written, one deleted and one renamed as a full read would", async () => {
    await write("src/add.js", "export const add = (a, b) => a + b;\n");
    await rm(path.join(files, "test/add.test.js"));
    await rename(path.join(files, "README.md"), path.join(files, "READ.md"));
    await readBack(true);
    expect((await git("index", ["ls-files"])).stdout.toString()).toBe(".gitignore\nREAD.md\nsrc/add.js\nsrc/lib/util.js\n");
  });

  it("stages a new folder of folders written at once, without the files git ignores", async () => {
    await write("lib/deep/er/x.js", "x\n");
    await write("lib/deep/y.js", "y\n");
    await write("lib/z.log", "ignored\n");
    await write("node_modules/pkg/index.js", "ignored\n");
    await readBack(true);
    expect((await git("index", ["ls-files", "lib"])).stdout.toString()).toBe("lib/deep/er/x.js\nlib/deep/y.js\n");
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
    await git("index", ["add", "-f", "--", "logs/kept.log"]);
    // that window is the force-add's, which a full `git add -A` would not make: it is taken and left aside
    await watcher.changes();
    await rename(path.join(files, "logs"), path.join(files, "old-logs"));
    await mkdir(path.join(files, "logs"));
    await write("logs/kept.log", "written again\n");
    await write("logs/new.log", "ignored\n");
    const changed = await watcher.changes();
    expect(changed).toBeDefined();
    expect(await stageChanges((args, input) => git("index", args, input), files, changed ?? new Set(), indexed)).toBe(true);
    expect((await git("index", ["ls-files", "logs", "old-logs"])).stdout.toString()).toBe("logs/kept.log\n");
  });

  it("keeps a file a command names like the host's sync cookie (case 327)", async () => {
    await write(".aop-sync-00000000-0000-0000-0000-000000000000", "mine\n");
    await readBack(true);
    expect((await git("index", ["ls-files", ".aop-sync-*"])).stdout.toString()).toBe(".aop-sync-00000000-0000-0000-0000-000000000000\n");
  });

  it("never looks through a link that replaced a watched folder (case 328)", async () => {
    const outside = path.join(root, "outside");
    await mkdir(path.join(outside, "lib"), { recursive: true });
    await writeFile(path.join(outside, "lib", "util.js"), "a host file\n");
    await rm(path.join(files, "src"), { recursive: true });
    await symlink(outside, path.join(files, "src"));
    await writeFile(path.join(outside, "lib", "util.js"), "a host file, changed\n");
    await readBack();
    expect((await git("index", ["ls-files", "-s", "src"])).stdout.toString()).toMatch(/^120000 [0-9a-f]{40} 0\tsrc\n$/);
  });

  it("reads every file when an ignore file changed, a file has a second link, or the watcher was told to doubt", async () => {
    await write(".gitignore", "node_modules/\n");
    await readBack(false);

    await link(path.join(files, "src/add.js"), path.join(files, "add-hard"));
    await readBack(false);

    await write("src/add.js", "changed while the watcher was in doubt\n");
    watcher.distrust();
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
