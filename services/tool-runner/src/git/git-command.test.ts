import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { makeTestRepository } from "../testing/repository-fixture.js";
import { setTimeout as sleep } from "node:timers/promises";
import { GitFailed, gitEnvironment, runGit, spawnGit } from "./git-command.js";
import { encodeTree, objectId, parseTree, writeLooseObject } from "./tree-object.js";

const removals: Array<() => Promise<void>> = [];
afterAll(async () => Promise.all(removals.map((remove) => remove())));

describe("runGit", () => {
  // filters and diff.external cannot be switched off from the command line: that is why the host runs git only
  // with a GIT_DIR it made (repository/checkout.ts); these are the ones the settings do switch off, as a second wall
  it("runs no fsmonitor, pager or hook, even in a repository someone else configured (case 92)", async () => {
    const made = await makeTestRepository({ "a.txt": "a\n" });
    removals.push(made.remove);
    const marker = path.join(tmpdir(), `pwned-${randomUUID()}`);
    const gitDir = path.join(made.folder, ".git");
    await writeFile(
      path.join(gitDir, "config"),
      `[core]\n\trepositoryformatversion = 0\n\tfsmonitor = touch ${marker}\n\tpager = touch ${marker}\n\thooksPath = hooks\n\tsshCommand = touch ${marker}\n`,
    );
    await writeFile(path.join(gitDir, "hooks", "pre-commit"), `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
    await writeFile(path.join(made.folder, "a.txt"), "changed\n");
    const place = { gitDir, workTree: made.folder, cwd: made.folder };
    await runGit({ ...place, args: ["status", "--porcelain"] });
    await runGit({ ...place, args: ["diff-files", "-p"] });
    await runGit({ ...place, args: ["add", "-A"] });
    await runGit({ ...place, args: ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "x"] });
    expect(existsSync(marker)).toBe(false);
  });

  it("reaches no remote by a protocol it was not given", async () => {
    const folder = await mkdtemp(path.join(tmpdir(), "ao-git-"));
    removals.push(() => rm(folder, { recursive: true, force: true }));
    const gitDir = path.join(folder, "repo.git");
    await runGit({ gitDir, args: ["init", "--bare", "-q"] });
    const refused = await runGit({ gitDir, args: ["ls-remote", `file://${folder}`] }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(GitFailed);
    expect((refused as GitFailed).stderr).toContain("not allowed");
  });
});

describe("git's formats", () => {
  it("writes trees and blobs git reads back as its own", async () => {
    const folder = await mkdtemp(path.join(tmpdir(), "ao-git-"));
    removals.push(() => rm(folder, { recursive: true, force: true }));
    const gitDir = path.join(folder, "repo.git");
    await runGit({ gitDir, args: ["init", "--bare", "-q"] });
    const objects = path.join(gitDir, "objects");
    const blob = await writeLooseObject(objects, "blob", Buffer.from("hello\n"));
    expect(blob).toBe("ce013625030ba8dba906f756967f9e9ca394464a");
    const inner = await writeLooseObject(objects, "tree", encodeTree([{ name: "b.txt", kind: "file", id: blob }]));
    const entries = [
      { name: "a.b", kind: "file" as const, id: blob },
      { name: "a", kind: "tree" as const, id: inner },
      { name: "run.sh", kind: "executable" as const, id: blob },
    ];
    const root = await writeLooseObject(objects, "tree", encodeTree(entries));
    await runGit({ gitDir, args: ["fsck", "--strict", "--no-dangling"] });
    const listed = (await runGit({ gitDir, args: ["ls-tree", "-r", root] })).stdout.toString("utf8");
    expect(listed).toBe(`100644 blob ${blob}\ta.b\n100644 blob ${blob}\ta/b.txt\n100755 blob ${blob}\trun.sh\n`);
    const raw = (await runGit({ gitDir, args: ["cat-file", "tree", root] })).stdout;
    expect(objectId("tree", raw)).toBe(root);
    expect(parseTree(raw).map((entry) => entry.name)).toEqual(["a.b", "a", "run.sh"]);
  });
});

/** Whether process `pid` still runs (a zombie nobody reaped yet runs no more). */
async function running(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => undefined);
  return stat !== undefined && !/^\d+ \(.*\) Z/s.test(stat);
}

/** A git whose helper (a shell its alias starts) writes its pid and waits; resolves with the helper's pid. */
async function gitWithHelper(timeoutMs: number): Promise<{ spawned: ReturnType<typeof spawnGit>; helper: number }> {
  const folder = await mkdtemp(path.join(tmpdir(), "ao-git-group-"));
  removals.push(() => rm(folder, { recursive: true, force: true }));
  const pidFile = path.join(folder, "helper.pid");
  const spawned = spawnGit(["-c", `alias.hold=!echo $$ > ${pidFile}; exec sleep 300`, "hold"], { env: gitEnvironment({ gitDir: path.join(folder, "none.git") }), timeoutMs, cwd: folder });
  spawned.child.stdout.resume();
  spawned.child.stderr.resume();
  for (;;) {
    const text = await readFile(pidFile, "utf8").catch(() => "");
    if (text.endsWith("\n")) return { spawned, helper: Number(text.trim()) };
    await sleep(20);
  }
}

async function stopped(pid: number): Promise<boolean> {
  for (let tries = 0; tries < 1_000; tries += 1) {
    if (!(await running(pid))) return true;
    await sleep(50);
  }
  return false;
}

describe("spawnGit", () => {
  it("stops git's helpers with it: upload-pack's pack-objects does not outlive a client that went away", async () => {
    const { spawned, helper } = await gitWithHelper(60_000);
    expect(await running(helper)).toBe(true);
    spawned.kill();
    expect(await stopped(helper)).toBe(true);
  });

  it("stops git and its helpers past their time even when nobody is left to stop them (a tool-runner killed with SIGKILL)", async () => {
    // no timer of the caller's here, as after the tool-runner's death: only coreutils' timeout is left
    const { helper } = await gitWithHelper(500);
    expect(await stopped(helper)).toBe(true);
  });
});
