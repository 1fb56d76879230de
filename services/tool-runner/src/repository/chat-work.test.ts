import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appErrorOf as errorOf } from "../testing/app-error-of.js";
import { makeTestRepository, openTestRepositories, testGit, type TestRepositories } from "../testing/repository-fixture.js";
import { chatChanges } from "./chat-changes.js";
import { commitLog } from "./commit-log.js";
import { commitIdentity, memberAddress, noReplyDomain } from "./commit-identity.js";
import type { ChatTree, TreeView } from "./working-trees.js";

let system: TestRepositories;
let bundle: string;
const removals: Array<() => Promise<void>> = [];
const alice = { user: "alice", session_id: "s1", agent_id: "bmm/dev" };
const appErrorOf = (promise: Promise<unknown>) => errorOf(promise, tmpdir());

beforeAll(async () => {
  system = await openTestRepositories();
  const made = await makeTestRepository({ "src/add.js": "export const add = (a, b) => a - b;\n", "README.md": "calc\n" });
  bundle = made.bundle;
  removals.push(made.remove);
});

afterAll(async () => {
  await system.close();
  await Promise.all(removals.map((remove) => remove()));
});

/** Writes `file` and commits it in the chat's working tree as the member's command would, with `extra` git options. */
function commitIn(chat: ChatTree, file: string, content: string, extra: readonly string[] = [], displayName = "Alice Liddell") {
  return system.trees.withWorkingTree(
    chat,
    async ({ directory }, { environment }) => {
      await writeFile(path.join(directory, file), content);
      testGit(directory, ["add", file], undefined, environment);
      testGit(directory, ["commit", "-q", "-m", `change ${file}`, ...extra], undefined, environment);
    },
    { ...alice, session_id: chat.session },
    { displayName },
  );
}

async function branchHead(project: string, branch: string): Promise<string | undefined> {
  return (await system.repositories.view(project))?.branches.find((one) => one.name === branch)?.head;
}

describe("commits by the model", () => {
  it("name the member as author and committer and carry the Agent and Chat trailers", async () => {
    const project = await system.attached(bundle);
    const chat = { project, session: "s1" };
    await commitIn(chat, "src/add.js", "export const add = (a, b) => a + b;\n");
    const view = (await system.trees.view(chat)) as TreeView;
    const { commits } = await commitLog(view.repository.local, { tip: view.state.head, limit: 10 });
    expect(commits.map((commit) => commit.subject)).toEqual(["change src/add.js", "first"]);
    expect(commits[0]).toMatchObject({
      author: { name: "Alice Liddell", email: `alice@${noReplyDomain}` },
      committer: { name: "Alice Liddell", email: `alice@${noReplyDomain}` },
      agent_id: "bmm/dev",
      chat_id: "s1",
    });
    expect(await branchHead(project, "chat/s1")).toBe(view.state.head);
  });

  it("refuses a commit that skips the hook or names another author, and keeps nothing of the command (case 310)", async () => {
    const project = await system.attached(bundle);
    const chat = { project, session: "s1" };
    await commitIn(chat, "NOTES.md", "kept\n");
    const before = (await system.trees.view(chat)) as TreeView;
    for (const extra of [["--no-verify"], ["--author", "Bob <bob@example.com>"], ["-c"]]) {
      const attempt =
        extra[0] === "-c"
          ? system.trees.withWorkingTree(
              chat,
              async ({ directory }, { environment }) => {
                await writeFile(path.join(directory, "evil.txt"), "x\n");
                testGit(directory, ["-c", "core.hooksPath=/dev/null", "add", "evil.txt"], undefined, environment);
                testGit(directory, ["-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "no trailers"], undefined, environment);
              },
              alice,
            )
          : commitIn(chat, "evil.txt", "x\n", extra);
      const refusal = await appErrorOf(attempt);
      expect(refusal.code, extra.join(" ")).toBe("COMMIT_REFUSED");
      expect(refusal.message).toContain("git commit");
    }
    const after = (await system.trees.view(chat)) as TreeView;
    expect(after.state).toMatchObject({ head: before.state.head, files: before.state.files, index: before.state.index });
    expect(await branchHead(project, "chat/s1")).toBe(before.state.head);
    expect((await system.trees.lookup(after, "evil.txt")).found).toBe("none");
  });

  it("derive a member's address: their user id when it is one, else a no-reply address no two members share", () => {
    expect(memberAddress("alice@example.com")).toBe("alice@example.com");
    expect(memberAddress("alice")).toBe(`alice@${noReplyDomain}`);
    const odd = memberAddress("google-oauth2|1234");
    expect(odd).toMatch(new RegExp(`^google-oauth2-1234\\+[0-9a-f]{10}@${noReplyDomain.replace(/\./g, "\\.")}$`));
    expect(memberAddress("google-oauth2-1234")).not.toBe(odd);
    expect(commitIdentity({ user: "bob", displayName: ' "Bob <b@x>" \u202e', chat: "s" }).name).toBe("Bob b@x");
  });
});

describe("the model's git", () => {
  it("never moves another branch: a merge into main or a branch of its own stays in its sandbox (case 311)", async () => {
    const project = await system.attached(bundle);
    const chat = { project, session: "s1" };
    const main = await branchHead(project, "main");
    await system.trees.withWorkingTree(
      chat,
      async ({ directory }, { environment }) => {
        const git = (args: string[]) => testGit(directory, args, undefined, environment);
        git(["checkout", "-q", "-b", "side"]);
        await writeFile(path.join(directory, "side.txt"), "side\n");
        git(["add", "side.txt"]);
        git(["commit", "-q", "-m", "on side"]);
        git(["checkout", "-q", "main"]);
        git(["merge", "-q", "--no-edit", "side"]);
        git(["tag", "v9"]);
        expect(() => git(["push", "-q", "origin", "main"])).toThrow();
      },
      alice,
    );
    const view = (await system.repositories.view(project))!;
    expect(view.branches.find((branch) => branch.name === "main")?.head).toBe(main);
    expect(view.branches.map((branch) => branch.name).sort()).toEqual(["chat/s1", "main"]);
    expect(view.tags).toBe(0);
    const state = ((await system.trees.view(chat)) as TreeView).state;
    expect(state.detached).toBe(true);
    expect(await branchHead(project, "chat/s1")).toBe(main);
  });
});

describe("a chat on a named branch", () => {
  it("works on that branch, forked from the default branch at its first change, shared by the chats started on it", async () => {
    const project = await system.attached(bundle);
    const main = await branchHead(project, "main");
    const chat = { project, session: "s1", branch: "story/1-2-add" };
    await commitIn(chat, "src/add.js", "export const add = (a, b) => a + b;\n");
    const view = (await system.trees.view(chat)) as TreeView;
    expect(view.state).toMatchObject({ branch: "story/1-2-add", base: main });
    expect(await branchHead(project, "story/1-2-add")).toBe(view.state.head);
    expect(await branchHead(project, "chat/s1")).toBeUndefined();
    const second = (await system.trees.view({ project, session: "s2", branch: "story/1-2-add" })) as TreeView;
    expect(second.state.head).toBe(view.state.head);
  });
});

describe("a chat's work", () => {
  it("shows the commits and every change since the chat started, uncommitted ones included, and one file's diff", async () => {
    const project = await system.attached(bundle);
    const chat = { project, session: "s1" };
    expect(await chatChanges((await system.trees.view(chat)) as TreeView)).toMatchObject({ commits: [], files: [], patch: "", clean: true });
    await commitIn(chat, "src/add.js", "export const add = (a, b) => a + b;\n");
    await system.trees.change(chat, async () => [{ path: "docs/notes.md", content: Buffer.from("one\ntwo\n") }], alice);
    const changes = await chatChanges((await system.trees.view(chat)) as TreeView);
    expect(changes.commits.map((commit) => commit.subject)).toEqual(["change src/add.js"]);
    expect(changes.clean).toBe(false);
    expect(changes.files).toEqual([
      { path: "docs/notes.md", change: "added", additions: 2, deletions: 0, binary: false, uncommitted: true },
      { path: "src/add.js", change: "modified", additions: 1, deletions: 1, binary: false, uncommitted: false },
    ]);
    expect(changes.patch).toContain("-export const add = (a, b) => a - b;\n+export const add = (a, b) => a + b;");
    expect(changes.patch).toContain("+++ b/docs/notes.md");
    const one = await chatChanges((await system.trees.view(chat)) as TreeView, { path: "docs/notes.md" });
    expect(one.files.map((file) => file.path)).toEqual(["docs/notes.md"]);
    expect(one.patch).not.toContain("src/add.js");
    const small = await chatChanges((await system.trees.view(chat)) as TreeView, { limits: { maxPatchBytes: 100, maxFiles: 1, maxCommits: 1 } });
    expect(small).toMatchObject({ patch: null, patch_truncated: true, files_truncated: true });
  });

  it("discards the uncommitted changes and keeps the commits; refused while a command holds the working tree", async () => {
    const project = await system.attached(bundle);
    const chat = { project, session: "s1" };
    expect(await system.trees.discard(chat, { user: "bob" })).toBeUndefined();
    await commitIn(chat, "src/add.js", "export const add = (a, b) => a + b;\n");
    const committed = (await system.trees.view(chat)) as TreeView;
    await system.trees.change(chat, async () => [{ path: "README.md", content: Buffer.from("changed\n") }, { path: "new.txt", content: Buffer.from("new\n") }], alice);
    let during: Error | undefined;
    await system.trees.withWorkingTree(chat, async () => {
      during = await appErrorOf(system.trees.discard(chat, { user: "bob" }));
    }, alice);
    expect((during as { code?: string }).code).toBe("BUSY");
    const discarded = await system.trees.discard(chat, { user: "bob" });
    expect(discarded?.state).toMatchObject({ head: committed.state.head, files: committed.state.files, index: committed.state.files, updated_by: { user: "bob" } });
    const status = await system.trees.withWorkingTree(chat, async ({ directory }) => testGit(directory, ["status", "--porcelain"]), alice);
    expect(status).toBe("");
  });
});
