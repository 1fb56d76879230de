import { tmpdir } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BranchFilesReply } from "@agent-orchestrator/shared/wire";
import { appErrorOf as errorOf } from "../testing/app-error-of.js";
import { makeTestRepository, openTestRepositories, type TestRepositories } from "../testing/repository-fixture.js";
import { BranchFiles } from "./branch-files.js";

let system: TestRepositories;
let project: string;
const removals: Array<() => Promise<void>> = [];
const appErrorOf = (promise: Promise<unknown>) => errorOf(promise, tmpdir());
/** The bytes a download sent, as the gateway would read them, and the chunks they came in. */
const sent: Buffer[] = [];
const chunkCounts: number[] = [];
const bodies = {
  async send(output: AsyncIterable<Buffer>) {
    const chunks: Buffer[] = [];
    for await (const chunk of output) chunks.push(chunk);
    sent.push(Buffer.concat(chunks));
    chunkCounts.push(chunks.length);
    return { inline: Buffer.concat(chunks).toString("base64") };
  },
};
const large = Buffer.alloc(3 << 20, "0123456789abcdef").toString("latin1");
const files = (budget = 1 << 20) => new BranchFiles(system.repositories, bodies, () => budget);
const listed = (reply: BranchFilesReply) => {
  if (!reply.success || reply.files === null) throw new Error(JSON.stringify(reply));
  return reply.files;
};

beforeAll(async () => {
  system = await openTestRepositories();
  const made = await makeTestRepository(
    { "README.md": "# Calc\n", "src/add.js": "export const add = (a, b) => a + b;\n", "logo.png": "\u0089PNG\0\0binary", "data/large.bin": large, "src-b.js": "b\n" },
    { feature: { "src/mul.js": "export const mul = (a, b) => a * b;\n" } },
  );
  removals.push(made.remove);
  project = await system.attached(made.bundle);
  await system.trees.change({ project, session: "s1" }, async () => [{ path: "_bmad-output/planning-artifacts/prd.md", content: Buffer.from("# PRD\n") }], { user: "alice", session_id: "s1" });
});

afterAll(async () => {
  await system.close();
  await Promise.all(removals.map((remove) => remove()));
});

describe("a branch's files for the files API", () => {
  it("shows the default branch's last commit without a branch, another branch's last commit, a chat's branch as its working tree", async () => {
    const main = listed(await files().list({ project_id: project }));
    expect(main).toMatchObject({ branch: "main", working_tree: false, unservable_names: 0 });
    // by path as strings compare (git's own order puts the folder src/ before src-b.js)
    expect(main.files.map((file) => file.path)).toEqual(["README.md", "data/large.bin", "logo.png", "src-b.js", "src/add.js"]);
    const feature = listed(await files().list({ project_id: project, branch: "feature" }));
    expect(feature.files.map((file) => file.path)).toContain("src/mul.js");
    expect(feature.commit).not.toBe(main.commit);
    const chat = listed(await files().list({ project_id: project, branch: "chat/s1" }));
    expect(chat).toMatchObject({ branch: "chat/s1", commit: main.commit, working_tree: true });
    expect(chat.files.map((file) => file.path)).toContain("_bmad-output/planning-artifacts/prd.md");
    expect(listed(await files().list({ project_id: project, prefix: "src/" })).files.map((file) => file.path)).toEqual(["src/add.js"]);
  });

  it("cuts a list to fit one reply, saying so and where the next page starts, with every file's bytes counted", async () => {
    const whole = listed(await files().list({ project_id: project }));
    expect(whole.truncated).toBeUndefined();
    expect(whole.next_after).toBeUndefined();
    const cut = listed(await files(JSON.stringify({ success: true, files: whole }).length + 1000).list({ project_id: project }));
    expect(cut.truncated).toBe(true);
    expect(cut.files.length).toBeLessThan(whole.files.length);
    expect(cut.next_after).toBe(cut.files.at(-1)?.path);
    expect(cut.bytes).toBe(whole.bytes);
  });

  it("pages a list: each page starts after the path the last one ended at, and together they are the whole list of one tree", async () => {
    const whole = listed(await files().list({ project_id: project }));
    const pages = [listed(await files().list({ project_id: project, limit: 2 }))];
    while (pages.at(-1)?.next_after !== undefined) pages.push(listed(await files().list({ project_id: project, limit: 2, after: pages.at(-1)?.next_after })));
    expect(pages.map((page) => page.files.length)).toEqual([2, 2, 1]);
    expect(pages.flatMap((page) => page.files)).toEqual(whole.files);
    expect(new Set(pages.map((page) => page.tree))).toEqual(new Set([whole.tree]));
    expect(listed(await files().list({ project_id: project, after: "src/add.js" })).files).toEqual([]);
  });

  it("reads a text file, refuses a binary one and a branch the repository lacks, sends any file's bytes", async () => {
    const read = await files().read({ project_id: project, branch: "chat/s1", path: "_bmad-output/planning-artifacts/prd.md" });
    expect(read).toMatchObject({ success: true, file: { branch: "chat/s1", working_tree: true, content: "# PRD\n", truncated: false, file: { size: 6, read_only: true } } });
    expect((await appErrorOf(files().read({ project_id: project, path: "logo.png" }))).code).toBe("BINARY_FILE");
    expect((await appErrorOf(files().read({ project_id: project, path: "_bmad-output/planning-artifacts/prd.md" }))).code).toBe("FILE_NOT_FOUND");
    expect((await appErrorOf(files().list({ project_id: project, branch: "chat/s2" }))).code).toBe("BRANCH_NOT_FOUND");
    await files().read({ project_id: project, path: "logo.png", download: true });
    expect(sent.at(-1)?.toString("latin1")).toBe(Buffer.from("\u0089PNG\0\0binary").toString("latin1"));
  });

  it("streams a large file's download from git chunk by chunk, its bytes whole", async () => {
    const read = await files().read({ project_id: project, path: "data/large.bin", download: true });
    expect(read).toMatchObject({ success: true, file: { file: { path: "data/large.bin", size: 3 << 20 } } });
    expect(sent.at(-1)?.equals(Buffer.from(large, "latin1"))).toBe(true);
    expect(chunkCounts.at(-1)).toBeGreaterThan(1);
  });

  it("answers null for a project without a repository", async () => {
    expect(await files().list({ project_id: "no-repository" })).toEqual({ success: true, files: null });
    expect(await files().read({ project_id: "no-repository", path: "README.md" })).toEqual({ success: true, file: null });
  });
});
