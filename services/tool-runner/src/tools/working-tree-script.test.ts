import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolContext } from "@agent-orchestrator/shared/wire";
import { chatTreeOf, type TreeView } from "../repository/index.js";
import { makeTestRepository, openTestRepositories, testGit, type TestRepositories } from "../testing/repository-fixture.js";
import { createScriptFixture, type ScriptFixture } from "../testing/script-fixture.js";
import { runScriptInTree } from "./working-tree-script.js";

// docs/repositories.md "Scripts in the working tree": run_script in a project with a repository (security case 314)
let system: TestRepositories;
let scripts: ScriptFixture;
let bundle: string;
let removeRepository: () => Promise<void>;

beforeAll(async () => {
  system = await openTestRepositories();
  scripts = await createScriptFixture();
  const made = await makeTestRepository({ "src/add.js": "export const add = (a, b) => a + b;\n" }, { "story-1": { "src/mul.js": "export const mul = (a, b) => a * b;\n" } });
  testGit(made.folder, ["merge", "-q", "--no-ff", "-m", "1-1 merge story 1", "story-1"]);
  testGit(made.folder, ["bundle", "create", "-q", made.bundle, "--all"]);
  bundle = made.bundle;
  removeRepository = made.remove;
  // reads the history as git_evidence.py does (`git -C <repo> log`), writes what it found into the project and its scratch
  await scripts.plant(
    "_bmad/scripts/evidence.py",
    `import os, subprocess, sys
repo = sys.argv[1]
log = subprocess.run(["git", "-C", repo, "log", "--format=%s"], capture_output=True, text=True, check=True).stdout
print(log, end="")
os.makedirs(os.path.join(repo, "docs"), exist_ok=True)
open(os.path.join(repo, "docs", "evidence.md"), "w").write(log)
open("scratch.txt", "w").write("scratch")
if len(sys.argv) > 2:
    subprocess.run(["git", "-C", repo, "add", "docs/evidence.md"], check=True)
    subprocess.run(["git", "-C", repo, "commit", "-q", "-m", "record evidence"], check=True)
`,
  );
  // runs git status there, and tries to rewrite the monitor's hook (case 343)
  await scripts.plant(
    "_bmad/scripts/status.py",
    `import subprocess, sys
print(subprocess.run(["git", "-C", sys.argv[1], "status", "--porcelain"], capture_output=True, text=True, check=True).stdout, end="")
try:
    open("/fsmonitor/query", "a").write("exit 0")
    print("wrote-hook")
except OSError:
    pass
`,
  );
  // a skill folder is bound into the tree too
  await scripts.plant(".claude/skills/demo/SKILL.md", "---\nname: demo\n---\n");
  // asks git whether the tree is clean, then commits everything as a script that records its work would (`git add -A`)
  await scripts.plant(
    "_bmad/scripts/commit-all.py",
    `import os, subprocess, sys
repo = sys.argv[1]
git = lambda *args: subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, check=True).stdout
print(git("status", "--porcelain"), end="")
print("--")
open(os.path.join(repo, "notes.md"), "w").write("notes")
git("add", "-A")
git("commit", "-q", "-m", "record notes")
print(git("show", "--name-only", "--format=", "HEAD"), end="")
`,
  );
});

/** The monitor's token git keeps in the index's FSMN extension (signature, size, version, then the token), if any. */
function monitorToken(index: Buffer): string | undefined {
  const at = index.indexOf("FSMN", 12, "latin1");
  if (at === -1) return undefined;
  const start = at + 12;
  return index.subarray(start, index.indexOf(0, start)).toString("latin1");
}

afterAll(async () => {
  await system.close();
  await scripts.cleanup();
  await removeRepository();
});

async function chatOf(): Promise<{ context: ToolContext; before: TreeView }> {
  const project = `p${randomUUID().slice(0, 8)}`;
  await system.repositories.attachBundle(project, bundle, "alice");
  const context: ToolContext = { ...scripts.context, project_id: project, author_name: "Alice Liddell" };
  return { context, before: (await system.trees.view(chatTreeOf(context))) as TreeView };
}

const run = (context: ToolContext, before: TreeView, command: string) =>
  runScriptInTree(scripts.runner, system.trees, before, { args: { command }, context, info: { call_id: `run1:${randomUUID()}` } });

describe("run_script in a project with a repository", () => {
  it("runs in the chat's working tree with .git and git, and keeps what it wrote there before it answers", async () => {
    const { context, before } = await chatOf();
    const result = await run(context, before, "python3 {project-root}/_bmad/scripts/evidence.py {project-root}");
    expect(result.exitCode).toBe(0);
    expect(result.stdout.split("\n").sort()).toEqual(["", "1-1 merge story 1", "first", "on story-1"]);
    expect(result.filesWritten.map((file) => [file.path, file.created])).toEqual([
      ["{project-root}/docs/evidence.md", true],
      ["{session-folder}/scratch.txt", true],
    ]);
    // another replica reads it from the working tree's state; the file store's project space is not written
    const other = await system.replica();
    const view = (await other.trees.view(chatTreeOf(context))) as TreeView;
    const found = await other.trees.lookup(view, "docs/evidence.md");
    expect(found.found === "entry" && (await view.repository.reader.blob(found.entry.id)).toString("utf8")).toBe(result.stdout);
    expect(await scripts.stored(scripts.space("project", context.project_id), "docs/evidence.md")).toBeUndefined();
    expect(await scripts.stored(scripts.space("session"), "scratch.txt")).toBe("scratch");
  });

  it("makes its commits as the member, with the agent's and the chat's trailers", async () => {
    const { context, before } = await chatOf();
    const result = await run(context, before, "python3 {project-root}/_bmad/scripts/evidence.py {project-root} commit");
    expect(result.exitCode).toBe(0);
    const view = (await system.trees.view(chatTreeOf(context))) as TreeView;
    const log = await system.trees.withWorkingTree(chatTreeOf(context), async ({ directory }) => testGit(directory, ["log", "-1", "--format=%an <%ae>%n%(trailers:only,unfold)"]), {
      user: "alice",
    });
    expect(log).toBe("Alice Liddell <alice@users.noreply.invalid>\nAgent: pm\nChat: s1\n\n");
    expect(view.state.head).not.toBe(before.state.head);
  });

  it("gives the script's git the checkout's monitor, read-only, so the index keeps a token the next command's git status asks with (case 343)", async () => {
    const { context, before } = await chatOf();
    const result = await run(context, before, "python3 {project-root}/_bmad/scripts/status.py {project-root}");
    expect(result.exitCode).toBe(0);
    expect(result.stdout).not.toContain("wrote-hook");
    const index = await system.trees.withWorkingTree(chatTreeOf(context), async ({ gitDirectory }) => readFile(path.join(gitDirectory, "index")), { user: "alice" });
    // `<epoch>:<offset>` of the watcher's log; without the hook git writes no token, or drops the one it found
    expect(monitorToken(index)).toMatch(/^[0-9a-f]{16}:[0-9]+$/);
  });

  it("refuses to run where the repository puts a link at a place BMAD's install is shown, so no bind lands outside (case 314)", async () => {
    const made = await makeTestRepository({ "README.md": "hi\n", "_bmad": { link: "/etc" } });
    try {
      const project = `p${randomUUID().slice(0, 8)}`;
      await system.repositories.attachBundle(project, made.bundle, "alice");
      const context: ToolContext = { ...scripts.context, project_id: project };
      const before = (await system.trees.view(chatTreeOf(context))) as TreeView;
      await expect(run(context, before, "python3 {project-root}/_bmad/scripts/evidence.py {project-root}")).rejects.toMatchObject({ code: "SCRIPT_REJECTED", message: expect.stringContaining("{project-root}/_bmad, where") });
    } finally {
      await made.remove();
    }
  });

  it("does not show BMAD's install, bound into the tree, to the script's git: a fresh tree is clean and `git add -A` commits none of it", async () => {
    const { context, before } = await chatOf();
    const result = await run(context, before, "python3 {project-root}/_bmad/scripts/commit-all.py {project-root}");
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe("--\nnotes.md\n");
    const view = (await system.trees.view(chatTreeOf(context))) as TreeView;
    const { reader } = view.repository;
    // the commit, the index and the files kept: none of them holds the install
    for (const tree of [await reader.commitTree(view.state.head), view.state.index, view.state.files]) {
      expect((await reader.lookup(tree, "_bmad")).found).toBe("none");
      expect((await reader.lookup(tree, ".claude")).found).toBe("none");
      expect((await reader.lookup(tree, "notes.md")).found).toBe("entry");
    }
  });

  it("still shows the script's git what happened to the files of a repository that tracks its own _bmad/", async () => {
    const made = await makeTestRepository({ "README.md": "hi\n", "_bmad/own.md": "the repository's\n" });
    try {
      const project = `p${randomUUID().slice(0, 8)}`;
      await system.repositories.attachBundle(project, made.bundle, "alice");
      const context: ToolContext = { ...scripts.context, project_id: project };
      const before = (await system.trees.view(chatTreeOf(context))) as TreeView;
      const result = await run(context, before, "python3 {project-root}/_bmad/scripts/status.py {project-root}");
      // the install is bound over the repository's _bmad/: its tracked file is gone there, the install's files are not the repository's
      expect(result.stdout).toBe(" D _bmad/own.md\n");
    } finally {
      await made.remove();
    }
  });

  it("keeps nothing of a run stopped at its time limit", async () => {
    const { context, before } = await chatOf();
    const quick = await createScriptFixture({ runner: { timeoutMs: 1500 } });
    try {
      await quick.plant("_bmad/scripts/slow.py", "import os, sys, time\nopen(os.path.join(sys.argv[1], 'half.txt'), 'w').write('x')\ntime.sleep(60)\n");
      const result = await runScriptInTree(quick.runner, system.trees, before, { args: { command: "python3 {project-root}/_bmad/scripts/slow.py {project-root}" }, context, info: { call_id: "run1:slow" } });
      expect(result.timedOut).toBe(true);
      const view = (await system.trees.view(chatTreeOf(context))) as TreeView;
      expect((await system.trees.lookup(view, "half.txt")).found).toBe("none");
    } finally {
      await quick.cleanup();
    }
  });
});
