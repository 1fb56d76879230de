import { utimes } from "node:fs/promises";
import path from "node:path";
import { createLogger } from "@agent-orchestrator/shared/runtime";
import { type FileSpaceRef } from "@agent-orchestrator/shared/wire";
import { afterEach, describe, expect, it } from "vitest";
import { appErrorOf } from "../testing/app-error-of.js";
import { createInstalledProjectFixture, type InstalledProjectFixture } from "../testing/installed-project-fixture.js";
import { createSandboxFixture, type SandboxFixture } from "../testing/sandbox-fixture.js";
import { findFilesMax, findFilesTool } from "./find-files-tool.js";
import { jsonBytes } from "../reply-budget.js";

const logger = createLogger("tool-runner-test", "silent");
const project: FileSpaceRef = { kind: "project", id: "p1" };
const session: FileSpaceRef = { kind: "session", id: "s1" };
let fixture: InstalledProjectFixture | SandboxFixture | undefined;
afterEach(() => fixture?.cleanup());

async function installed(files: Record<string, string> = {}): Promise<InstalledProjectFixture> {
  const opened = await createInstalledProjectFixture(files);
  fixture = opened;
  return opened;
}

/** find_files as an installed agent (`_bmad/bmm`) calls it, or as the given fixture's custom bundle does */
function find(opened: InstalledProjectFixture | SandboxFixture, args: { pattern: string; path?: string }, budget = 1 << 20) {
  const context = typeof opened.toolContext === "function" ? opened.toolContext() : opened.toolContext;
  return findFilesTool(args, context, { sandbox: opened.sandbox, replyBudget: () => budget, logger }, { call_id: "c1" });
}

const pathsOf = (reply: Record<string, unknown>) => (reply["files"] as Array<{ path: string }>).map((file) => file.path);

describe("findFilesTool", () => {
  it("finds **/prd.md two levels down in a run folder, and the chat's own copy, with size and modification time", async () => {
    const opened = await installed();
    await opened.files.write(project, "_bmad-output/run-7/planning/prd.md", "# PRD\n", opened.author);
    await opened.files.write(project, "_bmad-output/run-7/planning/brief.md", "# Brief\n", opened.author);
    await opened.files.write(session, "drafts/prd.md", "# Draft\n", opened.author);
    const reply = await find(opened, { pattern: "**/prd.md" });
    expect(reply).toMatchObject({ success: true, pattern: "**/prd.md", total: 2, truncated: false });
    expect(pathsOf(reply).sort()).toEqual(["{project-root}/_bmad-output/run-7/planning/prd.md", "{session-folder}/drafts/prd.md"]);
    expect(reply["files"]).toContainEqual({ path: "{session-folder}/drafts/prd.md", size: 8, modified: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
  });

  it("resolves an output variable at the start of the pattern: {planning_artifacts}/**/architecture*.md", async () => {
    const opened = await installed();
    for (const file of ["_bmad-output/plans/architecture.md", "_bmad-output/plans/v2/architecture-draft.md", "_bmad-output/plans/prd.md", "docs/architecture.md"]) {
      await opened.files.write(project, file, "x", opened.author);
    }
    const reply = await find(opened, { pattern: "{planning_artifacts}/**/architecture*.md" });
    expect(reply).toMatchObject({ path: "{project-root}/_bmad-output/plans", total: 2 });
    expect(pathsOf(reply).sort()).toEqual(["{project-root}/_bmad-output/plans/architecture.md", "{project-root}/_bmad-output/plans/v2/architecture-draft.md"]);
  });

  it("matches a relative pattern below path, and a leading {a,b} as alternatives, not a variable", async () => {
    const opened = await installed();
    for (const file of ["docs/a.md", "docs/b.txt", "docs/deep/c.md", "notes/d.md"]) await opened.files.write(project, file, "x", opened.author);
    expect(pathsOf(await find(opened, { pattern: "*.md", path: "{project-root}/docs" }))).toEqual(["{project-root}/docs/a.md"]);
    expect(pathsOf(await find(opened, { pattern: "{docs,notes}/*.md" })).sort()).toEqual(["{project-root}/docs/a.md", "{project-root}/notes/d.md"]);
  });

  it("lists the installed BMAD files an installed agent may read, as {project-root} paths, and never protected names", async () => {
    const opened = await installed();
    const reply = await find(opened, { pattern: "**" });
    const paths = pathsOf(reply);
    expect(paths).toEqual(
      expect.arrayContaining([
        "{project-root}/_bmad/bmm/config.yaml",
        "{project-root}/_bmad/core/tasks/tidy.md",
        "{project-root}/.claude/skills/tidy-desk/SKILL.md",
        "{project-root}/.bmad-core/tasks/sweep.md",
      ]),
    );
    expect(paths.filter((file) => /\.env|id_rsa|server\.pem/.test(file))).toEqual([]);
    // the project's own files are the store's; what lies on disk beside the install is not in the view
    expect(paths.filter((file) => /src\/x\.ts|package\.json/.test(file))).toEqual([]);
  });

  it("shows a custom bundle only its own folder and core, not the other installed modules", async () => {
    const opened = await createSandboxFixture();
    fixture = opened;
    const paths = pathsOf(await find(opened, { pattern: "**/*" }));
    expect(paths.sort()).toEqual([
      "{project-root}/bmad/core/tasks/workflow.md",
      "{project-root}/bmad/custom/bundles/studio/config.yaml",
      "{project-root}/bmad/custom/bundles/studio/workflows/brief/instructions.md",
    ]);
    expect(await appErrorOf(find(opened, { pattern: "{project-root}/bmad/bmm/*" }), opened.base)).toMatchObject({ code: "PATH_OUTSIDE_ROOT" });
  });

  it("never lists the project's files in BMAD's install places, nor protected names the store holds", async () => {
    const opened = await installed();
    // written past the sandbox, as an older manifest or a migration could have left them
    for (const file of ["_bmad/bmm/planted.md", ".claude/settings.md", ".env", "docs/.git/config", "docs/keep.md"]) await opened.files.write(project, file, "x", opened.author);
    const paths = pathsOf(await find(opened, { pattern: "**" }));
    expect(paths.filter((file) => /planted|settings\.md|\.env|\.git/.test(file))).toEqual([]);
    expect(paths).toContain("{project-root}/docs/keep.md");
  });

  it("never lists a file behind a symlink of the install that leads outside (docs/security.md case 18)", async () => {
    const opened = await installed();
    const reply = await find(opened, { pattern: "**/secret" });
    expect(reply).toMatchObject({ files: [], total: 0 });
    expect(await appErrorOf(find(opened, { pattern: "*", path: "{project-root}/.claude/skills/escape" }), opened.base)).toMatchObject({ code: "SYMLINK_ESCAPE" });
  });

  it.each([
    [{ pattern: "../outside/*" }, "INVALID_PATTERN"],
    [{ pattern: "docs/../../outside/*" }, "INVALID_PATTERN"],
    [{ pattern: "*\u0000" }, "INVALID_PATTERN"],
    [{ pattern: "/etc/*" }, "PATH_OUTSIDE_ROOT"],
    [{ pattern: "*", path: "../outside" }, "PATH_OUTSIDE_ROOT"],
    [{ pattern: "*", path: "/etc" }, "PATH_OUTSIDE_ROOT"],
    [{ pattern: "{project-root}/.git/**" }, "PROTECTED_PATH"],
    [{ pattern: "{nope}/*.md" }, "UNRESOLVED_VARIABLE"],
  ])("refuses %j with %s, naming no host path", async (args, code) => {
    const opened = await installed();
    expect(await appErrorOf(find(opened, args), opened.base)).toMatchObject({ code });
  });

  it("says the folder is not found when path names none, and finds nothing in a folder only the pattern names", async () => {
    const opened = await installed();
    expect(await appErrorOf(find(opened, { pattern: "*.md", path: "{project-root}/nowhere" }), opened.base)).toMatchObject({
      code: "FILE_NOT_FOUND",
      message: "Folder not found: {project-root}/nowhere",
    });
    expect(await appErrorOf(find(opened, { pattern: "stories/*.md", path: "{project-root}/nowhere" }), opened.base)).toMatchObject({ code: "FILE_NOT_FOUND" });
    expect(await find(opened, { pattern: "{planning_artifacts}/*.md" })).toMatchObject({ success: true, files: [], total: 0 });
    await opened.files.write(project, "docs/brief.md", "x", opened.author);
    expect(await find(opened, { pattern: "prd.md", path: "{project-root}/docs" })).toMatchObject({ success: true, files: [], total: 0 });
  });

  it("lists newest first, at most findFilesMax, and says how many matched in all", async () => {
    const extra = Object.fromEntries(Array.from({ length: findFilesMax + 5 }, (_, index) => [`_bmad/bmm/data/f-${index}.csv`, "x"]));
    const opened = await installed(extra);
    for (let index = 0; index < findFilesMax + 5; index++) {
      const when = new Date(Date.UTC(2024, 0, 1) + index * 60_000);
      await utimes(path.join(opened.project, `_bmad/bmm/data/f-${index}.csv`), when, when);
    }
    const reply = await find(opened, { pattern: "**/*.csv" });
    expect(reply).toMatchObject({ total: findFilesMax + 5, truncated: true });
    const paths = pathsOf(reply);
    expect(paths).toHaveLength(findFilesMax);
    expect(paths[0]).toBe(`{project-root}/_bmad/bmm/data/f-${findFilesMax + 4}.csv`);
    expect(paths[1]).toBe(`{project-root}/_bmad/bmm/data/f-${findFilesMax + 3}.csv`);
    expect(reply["note"]).toContain(`${findFilesMax + 5} files match`);
  });

  it("shrinks the list to the reply budget", async () => {
    const extra = Object.fromEntries(Array.from({ length: 50 }, (_, index) => [`_bmad/bmm/data/file-with-a-long-name-${index}.csv`, "x"]));
    const opened = await installed(extra);
    const reply = await find(opened, { pattern: "**/*.csv" }, 1500);
    expect(reply).toMatchObject({ total: 50, truncated: true });
    expect(jsonBytes(reply)).toBeLessThanOrEqual(1500);
    expect(pathsOf(reply).length).toBeGreaterThan(0);
  });

  it("stops a glob whose expression backtracks without end with PATTERN_TIMEOUT, and finds normally right after", async () => {
    const opened = await installed();
    await opened.files.write(project, `docs/${"a".repeat(200)}.md`, "x", opened.author);
    const error = await appErrorOf(find(opened, { pattern: `**/${"*a".repeat(14)}*b` }), opened.base);
    expect(error).toMatchObject({ code: "PATTERN_TIMEOUT" });
    expect(pathsOf(await find(opened, { pattern: "docs/*.md" }))).toEqual([`{project-root}/docs/${"a".repeat(200)}.md`]);
  });

  it("answers an empty list with a note that widens the pattern, and matches ignoring case when only that finds files", async () => {
    const opened = await installed();
    await opened.files.write(project, "_bmad-output/PRD.md", "x", opened.author);
    const none = await find(opened, { pattern: "brief.md" });
    expect(none).toMatchObject({ success: true, files: [], total: 0 });
    expect(none["note"]).toContain("**/brief.md");
    const blind = await find(opened, { pattern: "**/prd.md" });
    expect(pathsOf(blind)).toEqual(["{project-root}/_bmad-output/PRD.md"]);
    expect(blind["note"]).toContain("ignoring case");
  });
});
