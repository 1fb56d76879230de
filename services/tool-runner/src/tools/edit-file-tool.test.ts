import { randomUUID } from "node:crypto";
import { createLogger } from "@agent-orchestrator/shared/runtime";
import { type FileSpaceRef } from "@agent-orchestrator/shared/wire";
import { afterEach, describe, expect, it } from "vitest";
import { createSandbox, type Sandbox } from "../sandbox/index.js";
import { createSandboxFixture, fixtureLimits, type SandboxFixture } from "../testing/sandbox-fixture.js";
import { appErrorOf } from "../testing/app-error-of.js";
import { editFileTool } from "./edit-file-tool.js";
import { saveOutputTool } from "./save-output-tool.js";
import type { ToolDependencies } from "./tool-handler.js";

// edit_file and save_output's append: a change made from the revision it read, one revision per call, the
// same sandbox and limits as a whole save (docs/file-tools.md, docs/security.md cases 155–158)
const logger = createLogger("tool-runner-test", "silent");
const project: FileSpaceRef = { kind: "project", id: "p1" };
const prdPath = "{planning_artifacts}/prd.md";
const stored = "_bmad-output/planning-artifacts/prd.md";
let fixture: SandboxFixture;
afterEach(() => fixture.cleanup());

async function open(limits: Partial<typeof fixtureLimits> = {}): Promise<ToolDependencies> {
  fixture = await createSandboxFixture({ limits });
  return depsOf(fixture.sandbox);
}

function depsOf(sandbox: Sandbox): ToolDependencies {
  return { sandbox, replyBudget: () => 1_000_000, logger };
}

const call = () => ({ call_id: `run1:1:${randomUUID()}` });
const save = (deps: ToolDependencies, file_path: string, content: string, mode?: "append" | "overwrite") =>
  saveOutputTool({ file_path, content, ...(mode ? { mode } : {}) }, fixture.toolContext, deps, call());
const edit = (deps: ToolDependencies, old_string: string, new_string: string, options: { file_path?: string; replace_all?: boolean } = {}) =>
  editFileTool({ file_path: options.file_path ?? prdPath, old_string, new_string, ...(options.replace_all ? { replace_all: true } : {}) }, fixture.toolContext, deps, call());
const text = async (path = stored) => new TextDecoder().decode((await fixture.files.read(project, path)).content);

describe("edit_file", () => {
  it("flips one front-matter field as one revision whose only difference is that line, with its author", async () => {
    const deps = await open();
    await save(deps, prdPath, "---\nstatus: draft\n---\n# PRD\n");
    expect(await edit(deps, "status: draft", "status: final")).toEqual({
      success: true,
      path: "{project-root}/_bmad-output/planning-artifacts/prd.md",
      size: 28,
      revision: 2,
      replacements: 1,
      lines: [2],
    });
    const [after, before] = await fixture.files.revisions(project, stored);
    expect(after?.author).toMatchObject({ user: "alice", session_id: "s1", agent_id: "studio/coach" });
    const lines = async (revision: number) => new TextDecoder().decode((await fixture.files.read(project, stored, revision)).content).split("\n");
    const [old, now] = [await lines(before?.revision ?? 0), await lines(after?.revision ?? 0)];
    expect(now.filter((line, index) => line !== old[index])).toEqual(["status: final"]);
  });

  it("refuses an old string found twice with the count, and writes no revision", async () => {
    const deps = await open();
    await save(deps, prdPath, "status: draft\nstatus: draft\n");
    const error = await appErrorOf(edit(deps, "status: draft", "status: final"), fixture.base);
    expect(error.code).toBe("EDIT_NOT_UNIQUE");
    expect(error.message).toContain("occurs 2 times in {project-root}/_bmad-output/planning-artifacts/prd.md (at lines 1, 2)");
    expect((await fixture.files.revisions(project, stored)).map((revision) => revision.revision)).toEqual([1]);
  });

  it("refuses a missing file, an installed BMAD file and a protected name as save_output does (docs/security.md case 155)", async () => {
    const deps = await open();
    expect((await appErrorOf(edit(deps, "a", "b"), fixture.base)).message).toContain("create it with save_output");
    expect((await appErrorOf(edit(deps, "Ada", "Eve", { file_path: "{bundle-root}/config.yaml" }), fixture.base)).code).toBe("PROTECTED_PATH");
    expect((await appErrorOf(edit(deps, "x", "y", { file_path: "{project-root}/bmad/bmm/config.yaml" }), fixture.base)).code).toBe("PROTECTED_PATH");
    expect((await appErrorOf(edit(deps, "x", "y", { file_path: "{project-root}/.git/config" }), fixture.base)).code).toBe("PROTECTED_PATH");
    expect((await appErrorOf(edit(deps, "x", "y", { file_path: "{project-root}/../outside/secret" }), fixture.base)).code).toBe("PATH_OUTSIDE_ROOT");
  });

  it("refuses an edit whose result passes the write limit, and a binary file, changing nothing", async () => {
    const deps = await open({ writeMaxBytes: 100 });
    await save(deps, prdPath, "x: 1\n");
    expect((await appErrorOf(edit(deps, "x: 1", "x".repeat(200)), fixture.base)).code).toBe("CONTENT_TOO_LARGE");
    await fixture.files.write(project, "data.bin", new Uint8Array([0, 1, 2, 120]), fixture.author);
    expect((await appErrorOf(edit(deps, "x", "y", { file_path: "{project-root}/data.bin" }), fixture.base)).code).toBe("BINARY_FILE");
    expect(await text()).toBe("x: 1\n");
  });

  it("edits a chat's scratch file too", async () => {
    const deps = await open();
    await save(deps, "{session-folder}/notes.md", "todo: 1\n");
    expect(await edit(deps, "todo: 1", "todo: 2", { file_path: "{session-folder}/notes.md" })).toMatchObject({ path: "{session-folder}/notes.md", revision: 2 });
  });
});

describe("save_output mode append", () => {
  it("creates a missing file, then adds exactly the bytes given, each call one revision", async () => {
    const deps = await open();
    expect(await save(deps, prdPath, "# PRD\n", "append")).toMatchObject({ revision: 1, size: 6 });
    expect(await save(deps, prdPath, "## Goals", "append")).toMatchObject({ revision: 2, size: 14 });
    expect(await save(deps, prdPath, "\n", "append")).toMatchObject({ revision: 3 });
    expect(await text()).toBe("# PRD\n## Goals\n");
  });

  it("refuses an append that would make the file pass the write limit, and keeps the file as it was", async () => {
    const deps = await open({ writeMaxBytes: 10 });
    await save(deps, prdPath, "12345678");
    expect((await appErrorOf(save(deps, prdPath, "abc", "append"), fixture.base)).code).toBe("CONTENT_TOO_LARGE");
    expect(await text()).toBe("12345678");
  });

  it("loses no append and no edit when two tool-runner replicas change one file at once (docs/security.md case 157)", async () => {
    const deps = await open();
    const other = depsOf(await createSandbox({ projectRoot: fixture.project, files: await fixture.store.replica(), ...fixtureLimits }));
    await save(deps, prdPath, "status: draft\n");
    const appends = Array.from({ length: 12 }, (_, index) => save(index % 2 === 0 ? deps : other, prdPath, `line ${index}\n`, "append"));
    const flip = edit(other, "status: draft", "status: final");
    await Promise.all([...appends, flip]);
    const lines = (await text()).split("\n").filter((line) => line !== "");
    expect(lines[0]).toBe("status: final");
    expect(lines.slice(1).sort()).toEqual(Array.from({ length: 12 }, (_, index) => `line ${index}`).sort());
    expect((await fixture.files.stat(project, stored))?.revision).toBe(14);
  });
});
