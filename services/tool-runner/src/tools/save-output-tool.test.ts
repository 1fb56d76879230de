import { randomUUID } from "node:crypto";
import { createLogger } from "@agent-orchestrator/shared/runtime";
import { type FileSpaceRef } from "@agent-orchestrator/shared/wire";
import { afterEach, describe, expect, it } from "vitest";
import { createSandbox, isServableName, type Sandbox } from "../sandbox/index.js";
import { liveFiles } from "../store/space-index.js";
import type { SpaceQuota } from "../store/space-quota.js";
import { createSandboxFixture, fixtureLimits, type SandboxFixture } from "../testing/sandbox-fixture.js";
import { saveOutputTool } from "./save-output-tool.js";
import type { ToolDependencies } from "./tool-handler.js";

const logger = createLogger("tool-runner-test", "silent");
const session: FileSpaceRef = { kind: "session", id: "s1" };
const project: FileSpaceRef = { kind: "project", id: "p1" };
let fixture: SandboxFixture | undefined;
afterEach(async () => {
  await fixture?.cleanup();
  fixture = undefined;
});

async function open(quotas: { project?: SpaceQuota; session?: SpaceQuota } = {}): Promise<SandboxFixture> {
  fixture = await createSandboxFixture({ quotas });
  return fixture;
}

function depsOf(sandbox: Sandbox): ToolDependencies {
  return { sandbox, replyBudget: () => 1_000_000, logger };
}

const save = (deps: ToolDependencies, filePath: string, content: string, callId: string = randomUUID()) =>
  saveOutputTool({ file_path: filePath, content }, (fixture as SandboxFixture).toolContext, deps, { call_id: callId });

async function storedPaths(space: FileSpaceRef): Promise<string[]> {
  return liveFiles(await (fixture as SandboxFixture).files.index(space))
    .map((file) => file.path)
    .sort();
}

describe("saveOutputTool", () => {
  it("answers the virtual path, size and revision, and records the user, chat, agent and tool call as the author", async () => {
    const { files, sandbox } = await open();
    const deps = depsOf(sandbox);
    expect(await save(deps, "{planning_artifacts}/brief.md", "# Brief", "run1:1:call_a")).toEqual({
      success: true,
      path: "{project-root}/_bmad-output/planning-artifacts/brief.md",
      size: 7,
      revision: 1,
    });
    expect(await save(deps, "{planning_artifacts}/brief.md", "# Brief v2", "run1:1:call_b")).toMatchObject({ revision: 2 });
    const revisions = await files.revisions(project, "_bmad-output/planning-artifacts/brief.md");
    expect(revisions.map((revision) => revision.author)).toEqual([
      { user: "alice", session_id: "s1", agent_id: "studio/coach", tool_call_id: "run1:1:call_b" },
      { user: "alice", session_id: "s1", agent_id: "studio/coach", tool_call_id: "run1:1:call_a" },
    ]);
  });
});

describe("saveOutputTool under the chat's quota", () => {
  it("refuses the sixth file with SESSION_MAX_FILES=5 and stores nothing, while rewriting an existing file still works", async () => {
    const { files, sandbox } = await open({ session: { maxFiles: 5, maxBytes: 1 << 20 } });
    const deps = depsOf(sandbox);
    for (let index = 1; index <= 5; index++) await save(deps, `{session-folder}/f${index}.md`, "five");
    await expect(save(deps, "{session-folder}/f6.md", "six")).rejects.toMatchObject({ code: "QUOTA_EXCEEDED", message: expect.stringContaining("5") });
    await expect(save(deps, "{session-folder}/f3.md", "rewritten")).resolves.toMatchObject({ success: true, size: 9, revision: 2 });
    expect(new TextDecoder().decode((await files.read(session, "f3.md")).content)).toBe("rewritten");
    expect(await storedPaths(session)).toEqual(["f1.md", "f2.md", "f3.md", "f4.md", "f5.md"]);
  });

  it("refuses a write that would pass SESSION_MAX_BYTES, and counts a rewrite by its new size only", async () => {
    const { files, sandbox } = await open({ session: { maxFiles: 100, maxBytes: 100 } });
    const deps = depsOf(sandbox);
    await save(deps, "{session-folder}/a.md", "a".repeat(60));
    await expect(save(deps, "{session-folder}/b.md", "b".repeat(41))).rejects.toMatchObject({ code: "QUOTA_EXCEEDED" });
    await expect(save(deps, "{session-folder}/b.md", "b".repeat(40))).resolves.toMatchObject({ success: true });
    // 60 + 40 = 100: a.md may still be rewritten at 60 bytes or less, not more
    await expect(save(deps, "{session-folder}/a.md", "c".repeat(60))).resolves.toMatchObject({ success: true });
    await expect(save(deps, "{session-folder}/a.md", "d".repeat(61))).rejects.toMatchObject({ code: "QUOTA_EXCEEDED" });
    expect(new TextDecoder().decode((await files.read(session, "a.md")).content)).toBe("c".repeat(60));
  });

  it("keeps the project's quota apart from the chat's", async () => {
    const { sandbox } = await open({ project: { maxFiles: 2, maxBytes: 1 << 20 }, session: { maxFiles: 100, maxBytes: 1 << 20 } });
    const deps = depsOf(sandbox);
    await save(deps, "docs/a.md", "a");
    await save(deps, "docs/b.md", "b");
    await expect(save(deps, "docs/c.md", "c")).rejects.toMatchObject({ code: "QUOTA_EXCEEDED" });
    await expect(save(deps, "{session-folder}/c.md", "c")).resolves.toMatchObject({ success: true });
  });

  it("lets two replicas fill the last places exactly, never past the quota", async () => {
    const { store, project: projectRoot, sandbox } = await open({ session: { maxFiles: 5, maxBytes: 1 << 20 } });
    const other = depsOf(await createSandbox({ projectRoot, files: await store.replica(), ...fixtureLimits }));
    const mine = depsOf(sandbox);
    const outcomes = await Promise.allSettled(Array.from({ length: 12 }, (_, index) => save(index % 2 ? mine : other, `{session-folder}/r${index}.md`, "x")));
    expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(5);
    expect(outcomes.filter((outcome) => outcome.status === "rejected").map((outcome) => (outcome as PromiseRejectedResult).reason.code)).toEqual(
      Array(7).fill("QUOTA_EXCEEDED"),
    );
    expect(await storedPaths(session)).toHaveLength(5);
  });

  it("refuses at write time every name it could not serve back, and reads back every name it accepts (docs/security.md case 141)", async () => {
    const { sandbox, context } = await open();
    const deps = depsOf(sandbox);
    const candidates = ["plain.md", "..foo.md", "日本語.md", "evil\u001b[31m.md", "del\u007f.md", "c1\u009b.md", "rtl\u202Etxt.md", "iso\u2066.md", "lrm\u200e.md", "a\\b.md", "con", "nul.txt", "dot.", "space ", "{x}.md"];
    const accepted: string[] = [];
    for (const name of candidates) {
      const saved = await save(deps, `{session-folder}/${name}`, "x").then(
        () => true,
        (error: { code?: string }) => {
          expect(["INVALID_PATH", "UNRESOLVED_VARIABLE"]).toContain(error.code);
          return false;
        },
      );
      if (!saved) continue;
      accepted.push(name);
      expect(isServableName(name)).toBe(true);
      await expect(sandbox.read(context, `{session-folder}/${name}`)).resolves.toMatchObject({ content: "x" });
    }
    expect(accepted).toEqual(["plain.md", "..foo.md", "日本語.md"]);
    expect(await storedPaths(session)).toEqual([...accepted].sort());
  });
});
