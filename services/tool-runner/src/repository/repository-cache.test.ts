import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { waitUntil } from "@agent-orchestrator/testing/wait-until";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTestRepository, openTestRepositories, testGit, type TestRepositories } from "../testing/repository-fixture.js";
import type { TreeView, WorkingTrees } from "./working-trees.js";

const mib = 1024 * 1024;
const idleMs = 3_000;
const removals: Array<() => Promise<void>> = [];
let bundle: string;

beforeAll(async () => {
  const made = await makeTestRepository({ "README.md": "# cached\n", "src/index.js": "export const answer = 42;\n" }, { feature: { "README.md": "# cached\n", "src/index.js": "export const answer = 43;\n", "src/new.js": "export {};\n" } });
  bundle = made.bundle;
  removals.push(made.remove);
});

afterAll(async () => {
  await Promise.all(removals.map((remove) => remove()));
});

/** Repositories on the test server with `settings`, closed after the file's tests. */
async function system(settings: Parameters<typeof openTestRepositories>[0]): Promise<TestRepositories> {
  const opened = await openTestRepositories(settings);
  removals.push(() => opened.close());
  return opened;
}

/** A command in `session`'s working tree that writes `bytes` as `file`; returns the checkout's folder. */
async function writeInCommand(trees: WorkingTrees, project: string, session: string, file: string, bytes: Buffer): Promise<string> {
  return trees.withWorkingTree(
    { project, session },
    async ({ directory }) => {
      await writeFile(path.join(directory, file), bytes);
      return path.dirname(directory);
    },
    { user: "alice", session_id: session, agent_id: "dev" },
  );
}

/** The spare checkout in the checkouts folder `checkouts`, once it is made (its `host/shown.json` is written last). */
async function spareMade(checkouts: string): Promise<string> {
  return waitUntil(async () => {
    const spares = (await readdir(checkouts)).filter((name) => name.startsWith("spare-")).map((name) => path.join(checkouts, name));
    return spares.find((spare) => existsSync(path.join(spare, "host", "shown.json")));
  });
}

/** What a later command in `session`'s working tree finds: the file's bytes, and git status. */
async function seenByCommand(trees: WorkingTrees, project: string, session: string, file: string): Promise<{ bytes: Buffer; status: string; folder: string }> {
  return trees.withWorkingTree(
    { project, session },
    async ({ directory }) => ({ bytes: await readFile(path.join(directory, file)), status: testGit(directory, ["status", "--porcelain"]), folder: path.dirname(directory) }),
    { user: "alice", session_id: session, agent_id: "dev" },
  );
}

/** What read_file finds: the file's bytes in the working tree's files. */
async function readInTree(trees: WorkingTrees, project: string, session: string, file: string): Promise<Buffer | undefined> {
  const view = (await trees.view({ project, session })) as TreeView;
  const found = await trees.lookup(view, file);
  return found.found === "entry" ? view.repository.reader.blob(found.entry.id) : undefined;
}

describe("a tool-runner's cache of repositories", () => {
  it("stays within REPOSITORY_CACHE_MAX_BYTES: the least recently used checkout goes, and its chat's next command and read see the same files", async () => {
    const repositories = await system({ cacheMaxBytes: 7 * mib });
    const project = await repositories.attached(bundle);
    const first = randomBytes(2 * mib);
    const second = randomBytes(2 * mib);
    const firstFolder = await writeInCommand(repositories.trees, project, "s1", "first.bin", first);
    const secondFolder = await writeInCommand(repositories.trees, project, "s2", "second.bin", second);
    await repositories.repositories.cache.sweep();
    // two packs of 2 MiB and two checkouts of 2 MiB do not fit in 7 MiB: the older checkout went
    expect(existsSync(firstFolder)).toBe(false);
    expect(existsSync(secondFolder)).toBe(true);
    const seen = await seenByCommand(repositories.trees, project, "s1", "first.bin");
    expect(seen.bytes.equals(first)).toBe(true);
    // written by a command and never added: untracked, as before the checkout went
    expect(seen.status).toBe("?? first.bin\n");
    expect((await readInTree(repositories.trees, project, "s1", "first.bin"))?.equals(first)).toBe(true);
  });

  it("keeps at most REPOSITORY_CHECKOUTS checkouts", async () => {
    const repositories = await system({ checkouts: 1 });
    const project = await repositories.attached(bundle);
    const firstFolder = await writeInCommand(repositories.trees, project, "s1", "a.txt", Buffer.from("a\n"));
    const secondFolder = await writeInCommand(repositories.trees, project, "s2", "b.txt", Buffer.from("b\n"));
    await repositories.repositories.cache.sweep();
    expect([existsSync(firstFolder), existsSync(secondFolder)]).toEqual([false, true]);
    // no room for a spare either
    expect((await readdir(path.dirname(secondFolder))).filter((name) => name.startsWith("spare-"))).toEqual([]);
    expect((await seenByCommand(repositories.trees, project, "s1", "a.txt")).bytes.toString()).toBe("a\n");
  });

  it("never removes the checkout a command runs in, nor its project's objects; once it is done both go, and come back from JetStream", async () => {
    const repositories = await system({ cacheMaxBytes: 1, objectsIdleMs: idleMs });
    const project = await repositories.attached(bundle);
    const content = randomBytes(64 * 1024);
    await writeInCommand(repositories.trees, project, "s1", "kept.bin", content);
    const projectFolder = (await repositories.repositories.attached(project))?.local.folder ?? "";
    const during = await repositories.trees.withWorkingTree(
      { project, session: "s1" },
      async ({ directory }) => {
        await repositories.repositories.cache.sweep();
        return { checkout: existsSync(directory), file: (await readFile(path.join(directory, "kept.bin"))).equals(content), status: testGit(directory, ["status", "--porcelain"]) };
      },
      { user: "alice", session_id: "s1", agent_id: "dev" },
    );
    expect(during).toEqual({ checkout: true, file: true, status: "?? kept.bin\n" });
    // objects no one used for objectsIdleMs: a file tool's read takes no hold, so only that long unused is safe
    await sleep(idleMs + 100);
    await repositories.repositories.cache.sweep();
    expect(existsSync(projectFolder)).toBe(false);
    expect((await readInTree(repositories.trees, project, "s1", "kept.bin"))?.equals(content)).toBe(true);
    const seen = await seenByCommand(repositories.trees, project, "s1", "kept.bin");
    expect(seen.bytes.equals(content)).toBe(true);
    expect(seen.status).toBe("?? kept.bin\n");
  });

  it("keeps a project's objects while a long read still reads them, with no new use of the project", async () => {
    const repositories = await system({ cacheMaxBytes: 1, objectsIdleMs: idleMs });
    const project = await repositories.attached(bundle);
    const view = (await repositories.trees.view({ project, session: "s1" })) as TreeView;
    const found = await repositories.trees.lookup(view, "README.md");
    if (found.found !== "entry") throw new Error("README.md is not in the bundle's tree");
    await sleep(idleMs + 100);
    // a search reads object after object through the repository it was given: it takes no hold, each read counts
    expect((await view.repository.local.read(found.entry.id)).content.toString()).toBe("# cached\n");
    await repositories.repositories.cache.sweep();
    expect(existsSync(view.repository.local.folder)).toBe(true);
    await sleep(idleMs + 100);
    await repositories.repositories.cache.sweep();
    expect(existsSync(view.repository.local.folder)).toBe(false);
  });

  it("keeps a spare checkout of the default branch after a command: a new chat's first command takes it, moved to its own branch's files", async () => {
    const repositories = await system({});
    const project = await repositories.attached(bundle);
    const firstFolder = await writeInCommand(repositories.trees, project, "s1", "a.txt", Buffer.from("a\n"));
    // made by the sweep after the command, in the background
    const spare = await spareMade(path.dirname(firstFolder));
    const spareReadme = (await stat(path.join(spare, "tree", "README.md"))).ino;

    const taken = await repositories.trees.withWorkingTree(
      { project, session: "s2" },
      async ({ directory }) => ({ readme: (await stat(path.join(directory, "README.md"))).ino, status: testGit(directory, ["status", "--porcelain"]), branch: testGit(directory, ["branch", "--show-current"]) }),
      { user: "alice", session_id: "s2", agent_id: "dev" },
    );
    // the spare's own files, not a checkout written again: the same inode, and nothing for git status to tell
    expect(taken).toEqual({ readme: spareReadme, status: "", branch: "chat/s2\n" });
    expect(existsSync(spare)).toBe(false);

    // a chat on another branch takes the next spare and is moved to that branch's files, its own writes included
    const next = await spareMade(path.dirname(firstFolder));
    const nextReadme = (await stat(path.join(next, "tree", "README.md"))).ino;
    await repositories.trees.change({ project, session: "s3", branch: "feature" }, async () => [{ path: "notes.md", content: Buffer.from("kept\n") }], { user: "alice", session_id: "s3", agent_id: "dev" });
    const moved = await repositories.trees.withWorkingTree(
      { project, session: "s3", branch: "feature" },
      async ({ directory }) => ({
        readme: (await stat(path.join(directory, "README.md"))).ino,
        index: await readFile(path.join(directory, "src", "index.js"), "utf8"),
        status: testGit(directory, ["status", "--porcelain"]),
        branch: testGit(directory, ["branch", "--show-current"]),
      }),
      { user: "alice", session_id: "s3", agent_id: "dev" },
    );
    expect(moved).toEqual({ readme: nextReadme, index: "export const answer = 43;\n", status: "?? notes.md\n", branch: "feature\n" });
  });

  it("removes a detached repository's objects and checkouts from this tool-runner at once", async () => {
    const repositories = await system({});
    const project = await repositories.attached(bundle);
    const folder = await writeInCommand(repositories.trees, project, "s1", "a.txt", Buffer.from("a\n"));
    const projectFolder = (await repositories.repositories.attached(project))?.local.folder ?? "";
    await repositories.repositories.detach(project);
    expect([existsSync(folder), existsSync(projectFolder)]).toEqual([false, false]);
  });
});
