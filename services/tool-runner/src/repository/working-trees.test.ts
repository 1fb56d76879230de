import { existsSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appErrorOf as errorOf } from "../testing/app-error-of.js";
import { makeTestRepository, openTestRepositories, testGit, type TestRepositories } from "../testing/repository-fixture.js";
import type { TreeView, WorkingTrees } from "./working-trees.js";

const nodeProject = {
  "package.json": '{ "name": "calc", "type": "module", "scripts": { "test": "node --test" } }\n',
  "src/add.js": "export function add(a, b) {\n  return a - b;\n}\n",
  "test/add.test.js": 'import { test } from "node:test";\nimport assert from "node:assert";\nimport { add } from "../src/add.js";\ntest("adds", () => assert.equal(add(2, 3), 5));\n',
  "_bmad-output/implementation-artifacts/1-1-add.md": "# Story 1.1: add\n",
};

let system: TestRepositories;
let bundle: string;
const removals: Array<() => Promise<void>> = [];
const alice = { user: "alice", session_id: "s1", agent_id: "dev" };
/** The AppError a promise fails with, whose message names no host folder. */
const appErrorOf = (promise: Promise<unknown>) => errorOf(promise, tmpdir());

beforeAll(async () => {
  system = await openTestRepositories();
  const made = await makeTestRepository(nodeProject, { feature: { "src/mul.js": "export const mul = (a, b) => a * b;\n" } });
  bundle = made.bundle;
  removals.push(made.remove);
});

afterAll(async () => {
  await system.close();
  await Promise.all(removals.map((remove) => remove()));
});

async function text(trees: WorkingTrees, view: TreeView, file: string): Promise<string | undefined> {
  const found = await trees.lookup(view, file);
  if (found.found !== "entry") return undefined;
  return (await view.repository.reader.blob(found.entry.id)).toString("utf8");
}

function replace(trees: WorkingTrees, project: string, session: string, file: string, from: string, to: string) {
  return trees.change(
    { project, session },
    async (view) => {
      const current = (await text(trees, view, file)) ?? "";
      return [{ path: file, content: Buffer.from(current.replace(from, to)) }];
    },
    { ...alice, session_id: session },
  );
}

describe("a project's repository", () => {
  it("imports a bundle of a Node project: its branches, its default branch and its files", async () => {
    const project = await system.attached(bundle);
    const view = await system.repositories.view(project);
    expect(view).toMatchObject({ default_branch: "main", remote: null, has_credential: false, created_by: "alice", working_trees: [] });
    expect(view?.branches.map((branch) => branch.name)).toEqual(["feature", "main"]);
    const tree = await system.trees.view({ project, session: "s1" });
    expect(tree?.state.branch).toBe("chat/s1");
    expect(await text(system.trees, tree as TreeView, "src/add.js")).toContain("return a - b;");
    expect((await system.trees.lookup(tree as TreeView, "src")).found).toBe("tree");
  });

  it("refuses a second attach, and forgets everything on detach", async () => {
    const project = await system.attached(bundle);
    expect((await appErrorOf(system.repositories.attachBundle(project, bundle, "alice"))).code).toBe("REPOSITORY_EXISTS");
    await system.repositories.detach(project);
    expect(await system.repositories.view(project)).toBeNull();
    expect(await system.trees.view({ project, session: "s1" })).toBeUndefined();
    await system.repositories.attachBundle(project, bundle, "alice");
    expect((await system.repositories.view(project))?.working_trees).toEqual([]);
  });

  it("keeps a chat's change on the chat's own branch, seen by another replica and not by another chat", async () => {
    const project = await system.attached(bundle);
    const written = await replace(system.trees, project, "s1", "src/add.js", "a - b", "a + b");
    expect(written.view.state.file_count).toBe(4);
    const other = await system.replica();
    const seen = await other.trees.view({ project, session: "s1" });
    expect(await text(other.trees, seen as TreeView, "src/add.js")).toContain("return a + b;");
    const elsewhere = await other.trees.view({ project, session: "s2" });
    expect(await text(other.trees, elsewhere as TreeView, "src/add.js")).toContain("return a - b;");
    const shown = await other.repositories.view(project);
    expect(shown?.branches.map((branch) => branch.name)).toEqual(["chat/s1", "feature", "main"]);
    expect(shown?.working_trees).toEqual([expect.objectContaining({ branch: "chat/s1", clean: false })]);
  });

  it("refuses a write through a symbolic link of the repository, and keeps the link a link (case 91)", async () => {
    const made = await makeTestRepository({ "README.md": "hi\n", "etc": { link: "/etc" }, "up": { link: ".." } });
    removals.push(made.remove);
    const project = `p${randomUUID().slice(0, 8)}`;
    await system.repositories.attachBundle(project, made.bundle, "alice");
    const view = (await system.trees.view({ project, session: "s1" })) as TreeView;
    expect(await system.trees.lookup(view, "etc/passwd")).toEqual({ found: "link-on-path", at: "etc" });
    const refusal = await appErrorOf(system.trees.change({ project, session: "s1" }, async () => [{ path: "up/escape.txt", content: Buffer.from("x") }], alice));
    expect(refusal.code).toBe("SYMLINK_ESCAPE");
    expect(refusal.message).not.toContain(tmpdir());
    expect((await appErrorOf(system.trees.change({ project, session: "s1" }, async () => [{ path: "etc", content: Buffer.from("x") }], alice))).code).toBe("SYMLINK_ESCAPE");
  });

  it("refuses a bundle whose tree names .git, so a pushed .git/config never reaches a checkout (case 92)", async () => {
    const made = await makeTestRepository({ "README.md": "hi\n" });
    removals.push(made.remove);
    const config = testGit(made.folder, ["hash-object", "-w", "--stdin"], "[core]\n\tfsmonitor = touch /tmp/pwned\n").trim();
    const inner = testGit(made.folder, ["mktree"], `100644 blob ${config}\tconfig\n`).trim();
    const readme = testGit(made.folder, ["rev-parse", "HEAD:README.md"]).trim();
    const top = testGit(made.folder, ["mktree"], `040000 tree ${inner}\t.git\n100644 blob ${readme}\tREADME.md\n`).trim();
    const commit = testGit(made.folder, ["commit-tree", top, "-p", "HEAD", "-m", "evil"]).trim();
    testGit(made.folder, ["update-ref", "refs/heads/main", commit]);
    const evil = path.join(made.folder, "..", "evil.bundle");
    testGit(made.folder, ["bundle", "create", "-q", evil, "--all"]);
    const refusal = await appErrorOf(system.repositories.attachBundle(`p${randomUUID().slice(0, 8)}`, evil, "alice"));
    expect(refusal.code).toBe("REPOSITORY_REFUSED");
    expect(refusal.message).toContain("hasDotgit");
  });

  it("refuses a bundle with a branch name git takes but a page could not show (case 93)", async () => {
    const made = await makeTestRepository({ "README.md": "hi\n" });
    removals.push(made.remove);
    testGit(made.folder, ["branch", "fix\u202egnp.exe"]);
    testGit(made.folder, ["bundle", "create", "-q", path.join(made.folder, "..", "bidi.bundle"), "--all"]);
    const refusal = await appErrorOf(system.repositories.attachBundle(`p${randomUUID().slice(0, 8)}`, path.join(made.folder, "..", "bidi.bundle"), "alice"));
    expect(refusal.code).toBe("REPOSITORY_REFUSED");
  });
});

describe("withWorkingTree", () => {
  it("gives a command the files and .git, and keeps what it changed and committed for the next replica", async () => {
    const project = await system.attached(bundle);
    const chat = { project, session: "s1" };
    const status = await system.trees.withWorkingTree(
      chat,
      async ({ directory }, { environment }) => {
        const before = testGit(directory, ["status", "--porcelain"]);
        await writeFile(path.join(directory, "src", "add.js"), "export function add(a, b) {\n  return a + b;\n}\n");
        await writeFile(path.join(directory, "NOTES.md"), "untracked\n");
        await mkdir(path.join(directory, "node_modules"), { recursive: true });
        await writeFile(path.join(directory, ".gitignore"), "node_modules/\n");
        await writeFile(path.join(directory, "node_modules", "cache.js"), "ignored\n");
        testGit(directory, ["add", "src/add.js", ".gitignore"]);
        testGit(directory, ["commit", "-q", "-m", "fix add"], undefined, environment);
        return before;
      },
      alice,
    );
    expect(status).toBe("");
    const other = await system.replica();
    const view = (await other.trees.view(chat)) as TreeView;
    expect(view.state.head).not.toBe((await system.trees.view({ project, session: "s2" }))?.state.head);
    expect(await text(other.trees, view, "NOTES.md")).toBe("untracked\n");
    expect(await text(other.trees, view, "node_modules/cache.js")).toBeUndefined();
    const log = await other.trees.withWorkingTree(
      chat,
      async ({ directory }) => ({
        log: testGit(directory, ["log", "--format=%s"]),
        status: testGit(directory, ["status", "--porcelain"]),
        add: await readFile(path.join(directory, "src", "add.js"), "utf8"),
      }),
      alice,
    );
    expect(log.log).toBe("fix add\nfirst\n");
    expect(log.status).toBe("?? NOTES.md\n");
    expect(log.add).toContain("a + b");
    const branch = (await other.repositories.view(project))?.branches.find((one) => one.name === "chat/s1");
    expect(branch?.head).toBe(view.state.head);
  });

  it("never runs a .git/config, hook or alternates a command leaves, on the host (case 92)", async () => {
    const project = await system.attached(bundle);
    const chat = { project, session: "s1" };
    const marker = path.join(tmpdir(), `pwned-${randomUUID()}`);
    const outside = await makeTestRepository({ "secret.txt": "another project's\n" });
    removals.push(outside.remove);
    await system.trees.withWorkingTree(
      chat,
      async ({ directory, gitDirectory }) => {
        await writeFile(
          path.join(gitDirectory, "config"),
          `[core]\n\tfsmonitor = touch ${marker}\n\thooksPath = hooks\n\tsshCommand = touch ${marker}\n[diff]\n\texternal = touch ${marker}\n[filter "x"]\n\tclean = touch ${marker}\n\tsmudge = touch ${marker}\n`,
        );
        await mkdir(path.join(gitDirectory, "hooks"), { recursive: true });
        for (const hook of ["pre-commit", "post-checkout", "post-index-change", "reference-transaction"]) {
          await writeFile(path.join(gitDirectory, "hooks", hook), `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
        }
        await writeFile(path.join(directory, ".gitattributes"), "* filter=x\n");
        await writeFile(path.join(gitDirectory, "objects", "info", "alternates"), `${path.join(outside.folder, ".git", "objects")}\n`);
        await writeFile(path.join(directory, "changed.txt"), "a change the host stores\n");
      },
      alice,
    );
    const other = await system.replica();
    await other.trees.withWorkingTree(chat, async ({ directory }) => {
      expect(await readFile(path.join(directory, "changed.txt"), "utf8")).toBe("a change the host stores\n");
    }, alice);
    expect(existsSync(marker)).toBe(false);
  });

  it("refuses a write from another replica while a command holds the working tree, and takes it again after", async () => {
    const project = await system.attached(bundle);
    const other = await system.replica();
    let during: Error | undefined;
    await system.trees.withWorkingTree(
      { project, session: "s1" },
      async () => {
        during = await appErrorOf(replace(other.trees, project, "s1", "src/add.js", "a - b", "a * b"));
      },
      alice,
    );
    expect((during as { code?: string }).code).toBe("BUSY");
    await replace(other.trees, project, "s1", "src/add.js", "a - b", "a * b");
  });

  it("keeps nothing of a command past its limit, and the next command starts from the state before (QUOTA_EXCEEDED)", async () => {
    const small = await openTestRepositories({ persistMaxBytes: 64 * 1024 });
    try {
      const project = `p${randomUUID().slice(0, 8)}`;
      await small.repositories.attachBundle(project, bundle, "alice");
      const chat = { project, session: "s1" };
      const refusal = await appErrorOf(
        small.trees.withWorkingTree(chat, async ({ directory }) => {
          const noise = Buffer.alloc(1024 * 1024);
          for (let at = 0; at < noise.length; at += 4) noise.writeUInt32LE((at * 2654435761) >>> 0, at);
          await writeFile(path.join(directory, "big.bin"), noise);
        }, alice),
      );
      expect(refusal.code).toBe("QUOTA_EXCEEDED");
      const after = await small.trees.withWorkingTree(chat, async ({ directory }) => existsSync(path.join(directory, "big.bin")), alice);
      expect(after).toBe(false);
    } finally {
      await small.close();
    }
  });

  it("keeps every change of a warm checkout's later commands, which read back only what the watcher saw", async () => {
    const project = await system.attached(bundle);
    const chat = { project, session: "s1" };
    const other = await system.replica();
    const files = async () => {
      const view = (await other.trees.view(chat)) as TreeView;
      const listed = await view.repository.reader.files(view.state.files);
      return Object.fromEntries(await Promise.all(listed.map(async (file) => [file.path, (await view.repository.reader.blob(file.id)).toString("utf8")] as const)));
    };
    // the first command reads every file (the watcher's first window); the next ones only what changed
    await system.trees.withWorkingTree(chat, async () => undefined, alice);
    await system.trees.withWorkingTree(
      chat,
      async ({ directory }) => {
        await writeFile(path.join(directory, "src", "add.js"), "export const add = (a, b) => a + b;\n");
        await rm(path.join(directory, "test", "add.test.js"));
        await mkdir(path.join(directory, "lib", "deep"), { recursive: true });
        await writeFile(path.join(directory, "lib", "deep", "x.js"), "x\n");
        testGit(directory, ["mv", "package.json", "pkg.json"]);
      },
      alice,
    );
    expect(await files()).toEqual({
      "_bmad-output/implementation-artifacts/1-1-add.md": nodeProject["_bmad-output/implementation-artifacts/1-1-add.md"],
      "lib/deep/x.js": "x\n",
      "pkg.json": nodeProject["package.json"],
      "src/add.js": "export const add = (a, b) => a + b;\n",
    });
    // a change made right before git status in the same command line is in the status, and kept
    const status = await system.trees.withWorkingTree(
      chat,
      async ({ directory }) => {
        await writeFile(path.join(directory, "lib", "y.js"), "y\n");
        return testGit(directory, ["status", "--porcelain", "--", "lib"]);
      },
      alice,
    );
    expect(status).toBe("?? lib/\n");
    expect((await files())["lib/y.js"]).toBe("y\n");
  });

  it("moves a warm checkout and reads every file from the host's index brought to the state, whose files no command's read-back wrote into it", async () => {
    const made = await makeTestRepository({ ...nodeProject, ".gitignore": "scratch/\n" });
    removals.push(made.remove);
    const project = await system.attached(made.bundle);
    const chat = { project, session: "s1" };
    await system.trees.withWorkingTree(chat, async () => undefined, alice);
    // read back from the watcher's paths alone: the host's index still holds the files before
    await system.trees.withWorkingTree(
      chat,
      async ({ directory }) => {
        await mkdir(path.join(directory, "scratch"));
        await writeFile(path.join(directory, "scratch", "keep"), "ignored, kept while the checkout is\n");
        await writeFile(path.join(directory, "notes.log"), "kept\n");
        await writeFile(path.join(directory, "src", "add.js"), "export const add = (a, b) => a * b;\n");
      },
      alice,
    );
    // a file tool's write of a file the command changed: the next command's checkout is moved to it, not made again
    await replace(system.trees, project, "s1", "src/add.js", "a * b", "a + b");
    const scratch = await system.trees.withWorkingTree(
      chat,
      async ({ directory }) => {
        // an ignore file changed: every file is read, and notes.log, tracked since the last command, stays
        await writeFile(path.join(directory, ".gitignore"), "scratch/\n*.log\n");
        return readFile(path.join(directory, "scratch", "keep"), "utf8").catch(() => undefined);
      },
      alice,
    );
    expect(scratch).toBe("ignored, kept while the checkout is\n");
    const view = (await (await system.replica()).trees.view(chat)) as TreeView;
    const listed = await view.repository.reader.files(view.state.files);
    expect(listed.map((file) => file.path).sort()).toEqual([".gitignore", "_bmad-output/implementation-artifacts/1-1-add.md", "notes.log", "package.json", "src/add.js", "test/add.test.js"]);
    expect(await text(system.trees, view, "src/add.js")).toBe("export const add = (a, b) => a + b;\n");
  });

  it("starts a checkout again when the command broke its .git", async () => {
    const project = await system.attached(bundle);
    const chat = { project, session: "s1" };
    await system.trees.withWorkingTree(chat, async ({ gitDirectory }) => {
      await rm(gitDirectory, { recursive: true, force: true });
    }, alice);
    const log = await system.trees.withWorkingTree(chat, async ({ directory }) => testGit(directory, ["log", "--format=%s"]), alice);
    expect(log).toBe("first\n");
  });
});
