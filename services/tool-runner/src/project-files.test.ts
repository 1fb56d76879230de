import type { FileSpaceRef } from "@agent-orchestrator/shared/wire";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ProjectFiles } from "./project-files.js";
import { appErrorOf } from "./testing/app-error-of.js";
import { openTestFileStore, type TestFileStore } from "./testing/file-store-fixture.js";

// `project.files.*` as the gateway and the orchestrator use it: the same store and path checks as the tools.
let store: TestFileStore;
let projectFiles: ProjectFiles;
let budget = 1024 * 1024;
beforeEach(async () => {
  store = await openTestFileStore();
  budget = 1024 * 1024;
  projectFiles = new ProjectFiles(store.files, () => budget, async () => ["_bmad-output", "docs"]);
});
afterEach(() => store.close());

const space: FileSpaceRef = { kind: "project", id: "p1" };
const bob = { user: "bob" };
const carol = { user: "carol", session_id: "s2", agent_id: "bmm/pm", tool_call_id: "run1:1:call_a" };
const failure = (promise: Promise<unknown>) => appErrorOf(promise, "/tmp");

describe("ProjectFiles", () => {
  it("lists a space's live files sorted, under a folder prefix when given, with their bytes", async () => {
    for (const [file, content] of [
      ["docs/prd.md", "prd"],
      ["docs/stories/1.1.md", "story"],
      ["docs-old/x.md", "old"],
      ["_bmad-output/planning-artifacts/brief.md", "brief"],
      ["docs/gone.md", "gone"],
    ] as const) {
      await projectFiles.write({ space, path: file, content, author: bob });
    }
    await projectFiles.remove({ space, path: "docs/gone.md", author: bob });
    const all = await projectFiles.list({ space });
    expect(all.success && all.files.map((file) => file.path)).toEqual(["_bmad-output/planning-artifacts/brief.md", "docs-old/x.md", "docs/prd.md", "docs/stories/1.1.md"]);
    const docs = await projectFiles.list({ space, prefix: "docs" });
    expect(docs).toEqual({
      success: true,
      files: [
        expect.objectContaining({ path: "docs/prd.md", size: 3, revision: 1, read_only: false, author: bob }),
        expect.objectContaining({ path: "docs/stories/1.1.md", size: 5 }),
      ],
      bytes: 8,
      unservable_names: 0,
    });
    expect(await projectFiles.list({ space, prefix: "docs/stories/" })).toMatchObject({ files: [{ path: "docs/stories/1.1.md" }] });
    expect(await projectFiles.list({ space, prefix: "nothing" })).toEqual({ success: true, files: [], bytes: 0, unservable_names: 0 });
    // another space holds none of them
    expect(await projectFiles.list({ space: { kind: "project", id: "p2" } })).toMatchObject({ files: [] });
    expect(await projectFiles.list({ space: { kind: "session", id: "p1" } })).toMatchObject({ files: [] });
  });

  it("leaves out and counts names the tools could not open (docs/security.md case 142)", async () => {
    await store.files.write(space, "evil\u001b[31m.md", "x", bob);
    await store.files.write(space, "plain.md", "x", bob);
    expect(await projectFiles.list({ space })).toMatchObject({ files: [{ path: "plain.md" }], unservable_names: 1 });
  });

  it("reads the latest revision or any kept one, and lists revisions newest first with their authors", async () => {
    await projectFiles.write({ space, path: "sprint-status.yaml", content: "v1", author: bob });
    await projectFiles.write({ space, path: "sprint-status.yaml", content: "v2", author: carol });
    expect(await projectFiles.read({ space, path: "sprint-status.yaml" })).toMatchObject({ success: true, content: "v2", truncated: false, file: { revision: 2, author: carol } });
    expect(await projectFiles.read({ space, path: "sprint-status.yaml", revision: 1 })).toMatchObject({ content: "v1", file: { revision: 1, author: bob } });
    const revisions = await projectFiles.revisions({ space, path: "sprint-status.yaml" });
    expect(revisions.success && revisions.revisions.map((revision) => [revision.revision, revision.author.user, revision.size])).toEqual([
      [2, "carol", 2],
      [1, "bob", 2],
    ]);
    expect((await failure(projectFiles.read({ space, path: "sprint-status.yaml", revision: 9 }))).code).toBe("FILE_NOT_FOUND");
    expect((await failure(projectFiles.revisions({ space, path: "never.md" }))).code).toBe("FILE_NOT_FOUND");
  });

  it("makes a deletion and a restore revisions too: nothing a workflow overwrites or a member deletes is lost", async () => {
    await projectFiles.write({ space, path: "docs/prd.md", content: "first", author: bob });
    await projectFiles.write({ space, path: "docs/prd.md", content: "overwritten", author: carol });
    expect(await projectFiles.remove({ space, path: "docs/prd.md", author: bob })).toMatchObject({ success: true, file: { revision: 3, deleted: true, size: 0 } });
    expect((await failure(projectFiles.read({ space, path: "docs/prd.md" }))).code).toBe("FILE_NOT_FOUND");
    expect(await projectFiles.list({ space })).toMatchObject({ files: [] });
    expect((await failure(projectFiles.remove({ space, path: "docs/prd.md", author: bob }))).code).toBe("FILE_NOT_FOUND");
    expect(await projectFiles.restore({ space, path: "docs/prd.md", revision: 1, author: carol })).toMatchObject({ success: true, file: { revision: 4, author: carol } });
    expect(await projectFiles.read({ space, path: "docs/prd.md" })).toMatchObject({ content: "first", file: { revision: 4 } });
    const revisions = await projectFiles.revisions({ space, path: "docs/prd.md" });
    expect(revisions.success && revisions.revisions.map((revision) => [revision.revision, revision.deleted === true])).toEqual([
      [4, false],
      [3, true],
      [2, false],
      [1, false],
    ]);
    expect((await failure(projectFiles.restore({ space, path: "docs/prd.md", revision: 3, author: bob }))).code).toBe("FILE_NOT_FOUND");
  });

  it("refuses .., absolute, empty-name and variable paths with INVALID_PATH, protected names with PROTECTED_PATH, on every operation", async () => {
    await projectFiles.write({ space, path: "docs/ok.md", content: "ok", author: bob });
    for (const bad of ["../p2/docs/x.md", "docs/../../x.md", "/etc/passwd", "./docs/ok.md", "docs//ok.md", "docs/ok.md/", "{bundle-root}/x.md", "docs/{x}.md", "a\\b.md", "evil\u001b.md", "con"]) {
      for (const attempt of [
        projectFiles.read({ space, path: bad }),
        projectFiles.write({ space, path: bad, content: "x", author: bob }),
        projectFiles.revisions({ space, path: bad }),
        projectFiles.remove({ space, path: bad, author: bob }),
        projectFiles.restore({ space, path: bad, revision: 1, author: bob }),
      ]) {
        expect({ bad, code: (await failure(attempt)).code }).toEqual({ bad, code: "INVALID_PATH" });
      }
    }
    expect((await failure(projectFiles.list({ space, prefix: "../p2" }))).code).toBe("INVALID_PATH");
    for (const secret of [".env", "docs/.env.local", ".git/config", "docs/.GIT/hooks/pre-commit", "keys/id_rsa", "certs/tls.key", ".npmrc", ".tool-calls/x.json"]) {
      expect({ secret, code: (await failure(projectFiles.write({ space, path: secret, content: "x", author: bob }))).code }).toEqual({ secret, code: "PROTECTED_PATH" });
      expect((await failure(projectFiles.read({ space, path: secret }))).code).toBe("PROTECTED_PATH");
    }
    expect(await projectFiles.list({ space })).toMatchObject({ files: [{ path: "docs/ok.md" }] });
  });

  it("refuses a member's write or restore under BMAD's install folders, which the project shows from the install (docs/security.md case 152)", async () => {
    for (const path of ["_bmad/bmm/config.yaml", ".claude/skills/x/SKILL.md", ".bmad-core/tasks/t.md", "bmad/core/x.md"]) {
      expect((await failure(projectFiles.write({ space, path, content: "shadow", author: bob }))).code).toBe("PROTECTED_PATH");
    }
    // a chat's scratch space shows no install, so the names are its own there
    await expect(projectFiles.write({ space: { kind: "session", id: "s1" }, path: "_bmad/render/x.md", content: "r", author: bob })).resolves.toMatchObject({ success: true });
  });

  it("answers BINARY_FILE for content that is not UTF-8 text", async () => {
    await store.files.write(space, "logo.png", new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff]), bob);
    expect((await failure(projectFiles.read({ space, path: "logo.png" }))).code).toBe("BINARY_FILE");
  });

  it("cuts a read to fit the reply and says so", async () => {
    await projectFiles.write({ space, path: "big.md", content: "x".repeat(10_000), author: bob });
    budget = 2_000;
    const reply = await projectFiles.read({ space, path: "big.md" });
    expect(reply).toMatchObject({ success: true, truncated: true, file: { size: 10_000 } });
    expect(Buffer.byteLength(JSON.stringify(reply))).toBeLessThanOrEqual(2_000);
  });

  it("purges a space whole and leaves the others", async () => {
    await projectFiles.write({ space, path: "a.md", content: "a", author: bob });
    await projectFiles.write({ space, path: "b.md", content: "b", author: bob });
    await projectFiles.write({ space: { kind: "session", id: "s1" }, path: "n.md", content: "n", author: bob });
    expect(await projectFiles.purge({ space })).toEqual({ success: true, files: 2 });
    expect(await projectFiles.list({ space })).toMatchObject({ files: [] });
    expect((await failure(projectFiles.revisions({ space, path: "a.md" }))).code).toBe("FILE_NOT_FOUND");
    expect(await projectFiles.read({ space: { kind: "session", id: "s1" }, path: "n.md" })).toMatchObject({ content: "n" });
  });
});
