import { execFileSync } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createCommandFixture, type CommandFixture } from "../testing/command-fixture.js";

// docs/commands.md: what a command can do in its working tree.
let fixture: CommandFixture;
beforeEach(async () => {
  fixture = await createCommandFixture();
});
afterEach(() => fixture.cleanup());

const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8" });

describe("a command in a working tree", () => {
  it("runs git status, diff, add and commit there, as the member whose turn it is, and the host sees the commit", async () => {
    await fixture.plant("src/add.js", "export const add = (a, b) => a - b;\n");
    expect(await fixture.run("git status --short")).toMatchObject({ exitCode: 0, stdout: "?? src/\n" });
    const commit = await fixture.run("git add -A && git commit -q -m 'add: first' && git log --format='%an <%ae> %s'");
    expect(commit).toMatchObject({ exitCode: 0, stdout: "Alice Example <alice@example.com> add: first\n" });
    await fixture.plant("src/add.js", "export const add = (a, b) => a + b;\n");
    const diff = await fixture.run("git diff --stat && git commit -qam 'add: fix' && git status --short");
    expect(diff.stdout).toBe(" src/add.js | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)\n");
    expect(git(fixture.tree, "log", "--format=%an %cn %s")).toBe("Alice Example Alice Example add: fix\nAlice Example Alice Example add: first\n");
    expect(git(fixture.tree, "status", "--porcelain")).toBe("");
  });

  it("runs the project's tests with node: a failing test, then a passing one", async () => {
    await fixture.plant("package.json", JSON.stringify({ name: "app", type: "module", scripts: { test: "node --test" } }));
    await fixture.plant("add.js", "export const add = (a, b) => a - b;\n");
    await fixture.plant("add.test.js", "import test from 'node:test';\nimport assert from 'node:assert';\nimport { add } from './add.js';\ntest('adds', () => assert.equal(add(2, 3), 5));\n");
    const failing = await fixture.run("npm test");
    expect(failing.exitCode).not.toBe(0);
    expect(failing.stdout).toMatch(/^[#ℹ] fail 1$/m);
    await fixture.plant("add.js", "export const add = (a, b) => a + b;\n");
    const passing = await fixture.run("npm test && python3 -c 'print(\"python too\")'");
    expect(passing).toMatchObject({ exitCode: 0, limits: [] });
    expect(passing.stdout).toMatch(/^[#ℹ] pass 1$/m);
    expect(passing.stdout).toContain("python too");
  });

  it("works in a checkout whose .git and objects lie apart, seeing neither host path", async () => {
    // the repository's layout (docs/repositories.md "A tool-runner's cache"): tree/.git names gitdir/, whose alternates name objects/
    const source = path.join(fixture.base, "source");
    execFileSync("git", ["init", "-q", "-b", "main", source]);
    await writeFile(path.join(source, "README.md"), "hello\n");
    git(source, "add", "README.md");
    git(source, "-c", "user.name=Host", "-c", "user.email=host@example.com", "commit", "-q", "-m", "initial");
    const objects = path.join(fixture.base, "cache", "objects");
    await mkdir(path.dirname(objects), { recursive: true });
    execFileSync("cp", ["-r", path.join(source, ".git", "objects"), objects]);
    const checkout = path.join(fixture.base, "cache", "checkouts", "main");
    const directory = path.join(checkout, "tree");
    const gitDirectory = path.join(checkout, "gitdir");
    await mkdir(path.join(gitDirectory, "objects", "info"), { recursive: true });
    await mkdir(path.join(gitDirectory, "refs", "heads"), { recursive: true });
    await mkdir(directory, { recursive: true });
    await writeFile(path.join(gitDirectory, "HEAD"), "ref: refs/heads/main\n");
    await writeFile(path.join(gitDirectory, "refs", "heads", "main"), git(source, "rev-parse", "HEAD"));
    await writeFile(path.join(gitDirectory, "config"), "[core]\n\trepositoryformatversion = 0\n\tbare = false\n");
    await writeFile(path.join(gitDirectory, "objects", "info", "alternates"), `${path.relative(path.join(gitDirectory, "objects"), objects)}\n`);
    await writeFile(path.join(directory, ".git"), `gitdir: ${path.relative(directory, gitDirectory)}\n`);
    git(directory, "reset", "-q", "--hard");

    const run = await fixture.runner.run({
      place: { directory, gitDirectory, objectDirectory: objects },
      command: "cat .git /git/objects/info/alternates; echo more >> README.md; git commit -qam 'more' && git log --format=%s && git rev-parse --git-dir",
      network: false,
      gitEnvironment: { GIT_AUTHOR_NAME: "Alice", GIT_AUTHOR_EMAIL: "a@example.com", GIT_COMMITTER_NAME: "Alice", GIT_COMMITTER_EMAIL: "a@example.com" },
      chat: "c1",
      user: "alice",
    });
    expect(run).toMatchObject({ exitCode: 0, stderr: "", stdout: "gitdir: /git\n/git-objects\nmore\ninitial\n/git\n" });
    // the host's files were never changed: the sandbox saw its own copies of the two pointers
    expect(await readFile(path.join(directory, ".git"), "utf8")).toBe("gitdir: ../gitdir\n");
    expect(git(directory, "log", "--format=%an %s")).toBe("Alice more\nHost initial\n");
  });

  it("refuses a variable of the caller that is not git's", async () => {
    await expect(fixture.run("true", { gitEnvironment: { LD_PRELOAD: "/tmp/x.so" } })).rejects.toThrow("not a GIT_* variable");
  });
});
