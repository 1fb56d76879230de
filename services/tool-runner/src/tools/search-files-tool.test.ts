import { rm, symlink } from "node:fs/promises";
import path from "node:path";
import { createLogger } from "@agent-orchestrator/shared/runtime";
import { type FileSpaceRef } from "@agent-orchestrator/shared/wire";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { appErrorOf } from "../testing/app-error-of.js";
import { createInstalledProjectFixture, type InstalledProjectFixture } from "../testing/installed-project-fixture.js";
import { fixtureLimits } from "../testing/sandbox-fixture.js";
import { jsonBytes } from "../reply-budget.js";
import { searchFilesTool } from "./search-files-tool.js";

const logger = createLogger("tool-runner-test", "silent");
const project: FileSpaceRef = { kind: "project", id: "p1" };
const session: FileSpaceRef = { kind: "session", id: "s1" };
let fixture: InstalledProjectFixture;
beforeEach(async () => {
  fixture = await createInstalledProjectFixture({ "_bmad/bmm/data/glossary.md": "FR: functional requirement\n" });
});
afterEach(() => fixture.cleanup());

type SearchArgs = { pattern: string; path?: string; glob?: string; literal?: boolean };
const search = (args: SearchArgs, budget = 1 << 20) =>
  searchFilesTool(args, fixture.toolContext(), { sandbox: fixture.sandbox, replyBudget: () => budget, logger }, { call_id: "c1" });
const hitsOf = (reply: Record<string, unknown>) => reply["hits"] as string[];
const pause = () => new Promise((resolve) => setTimeout(resolve, 5));

describe("searchFilesTool", () => {
  it("answers path:line: text across several files, newest file first, with counts", async () => {
    await fixture.files.write(project, "docs/prd.md", "# PRD\n\nFR-001 Users log in\nNFR-1 fast\nFR-002 Users log out\n", fixture.author);
    await pause();
    await fixture.files.write(project, "docs/epics.md", "Epic 1 covers FR-001\n", fixture.author);
    await pause();
    await fixture.files.write(session, "notes.md", "nothing here\n", fixture.author);
    const reply = await search({ pattern: "^FR-\\d+|covers FR" });
    expect(reply).toMatchObject({ success: true, pattern: "^FR-\\d+|covers FR", files_matched: 2, truncated: false });
    expect(hitsOf(reply)).toEqual(["{project-root}/docs/epics.md:1: Epic 1 covers FR-001", "{project-root}/docs/prd.md:3: FR-001 Users log in", "{project-root}/docs/prd.md:5: FR-002 Users log out"]);
    expect(reply["files_searched"]).toBeGreaterThanOrEqual(3);
  });

  it("searches the installed files an agent may read, and the chat's scratch files", async () => {
    await fixture.files.write(session, "drafts/brief.md", "functional requirement drafts\n", fixture.author);
    const reply = await search({ pattern: "functional requirement" });
    expect(hitsOf(reply).sort()).toEqual(["{project-root}/_bmad/bmm/data/glossary.md:1: FR: functional requirement", "{session-folder}/drafts/brief.md:1: functional requirement drafts"]);
  });

  it("takes the pattern as plain text with literal, and ignores case after (?i)", async () => {
    await fixture.files.write(project, "docs/a.md", "call f(x).y\ncall fxxy\nCALL F(X).Y\n", fixture.author);
    expect(hitsOf(await search({ pattern: "f(x).y", literal: true, path: "docs" }))).toEqual(["{project-root}/docs/a.md:1: call f(x).y"]);
    expect(hitsOf(await search({ pattern: "(?i)f(x).y", literal: true, path: "docs" }))).toEqual(["{project-root}/docs/a.md:1: call f(x).y", "{project-root}/docs/a.md:3: CALL F(X).Y"]);
    expect(hitsOf(await search({ pattern: "(?i)^call f", path: "docs" }))).toHaveLength(3);
  });

  it("keeps to the files a glob matches: a name without / matches file names, one with / paths below path", async () => {
    for (const file of ["docs/a.md", "docs/a.txt", "docs/stories/s1.md", "docs/other/s2.md"]) await fixture.files.write(project, file, "needle\n", fixture.author);
    expect(hitsOf(await search({ pattern: "needle", glob: "*.txt" }))).toEqual(["{project-root}/docs/a.txt:1: needle"]);
    expect(hitsOf(await search({ pattern: "needle", path: "{project-root}/docs", glob: "stories/*.md" }))).toEqual(["{project-root}/docs/stories/s1.md:1: needle"]);
  });

  it("searches one file when path names it", async () => {
    await fixture.files.write(project, "docs/a.md", "needle one\n", fixture.author);
    await fixture.files.write(project, "docs/b.md", "needle two\n", fixture.author);
    const reply = await search({ pattern: "needle", path: "{project-root}/docs/b.md" });
    expect(reply).toMatchObject({ path: "{project-root}/docs/b.md", hits: ["{project-root}/docs/b.md:1: needle two"], files_searched: 1 });
  });

  it("skips binary files and files over the read limit, and says which", async () => {
    await fixture.files.write(project, "docs/big.md", `needle\n${"x".repeat(fixtureLimits.readMaxBytes)}`, fixture.author);
    await fixture.files.write(project, "docs/image.png", new Uint8Array([110, 101, 101, 100, 108, 101, 0, 1]), fixture.author);
    await fixture.files.write(project, "docs/small.md", "needle\n", fixture.author);
    const reply = await search({ pattern: "needle", path: "docs" });
    expect(reply).toMatchObject({ hits: ["{project-root}/docs/small.md:1: needle"], files_searched: 1, files_skipped: 2 });
    expect(reply["skipped"]).toEqual(
      expect.arrayContaining([
        { path: "{project-root}/docs/big.md", reason: "too large" },
        { path: "{project-root}/docs/image.png", reason: "binary" },
      ]),
    );
    expect(reply["note"]).toContain("2 files were not searched");
  });

  it("bounds the hits of one file and says not all are shown", async () => {
    await fixture.files.write(project, "docs/many.md", "hit\n".repeat(50), fixture.author);
    const reply = await search({ pattern: "hit", path: "docs" });
    expect(hitsOf(reply)).toHaveLength(20);
    expect(reply).toMatchObject({ truncated: true });
    expect(reply["note"]).toContain("at most 20 per file");
  });

  it("shrinks the hits to the reply budget", async () => {
    await fixture.files.write(project, "docs/many.md", `${"a long line with the word needle in it\n".repeat(20)}`, fixture.author);
    const reply = await search({ pattern: "needle", path: "docs" }, 700);
    expect(reply).toMatchObject({ truncated: true });
    expect(jsonBytes(reply)).toBeLessThanOrEqual(700);
    expect(hitsOf(reply).length).toBeGreaterThan(0);
  });

  it("refuses an expression that does not parse with INVALID_PATTERN and the parser's reason", async () => {
    const error = await appErrorOf(search({ pattern: "FR-(\\d+" }), fixture.base);
    expect(error).toMatchObject({ code: "INVALID_PATTERN" });
    expect(error.message).toContain("Unterminated group");
  });

  it("stops a catastrophic expression with PATTERN_TIMEOUT naming the file, and searches normally right after", async () => {
    await fixture.files.write(project, "docs/aaa.md", `${"a".repeat(30)}b\n`, fixture.author);
    const error = await appErrorOf(search({ pattern: "(a+)+$", path: "docs" }), fixture.base);
    expect(error).toMatchObject({ code: "PATTERN_TIMEOUT" });
    expect(error.message).toContain("{project-root}/docs/aaa.md");
    expect(hitsOf(await search({ pattern: "a+b", path: "docs" }))).toEqual([`{project-root}/docs/aaa.md:1: ${"a".repeat(30)}b`]);
  });

  it("never reads a file outside the view: a link out of the install, or a file swapped for one after indexing, gives no content", async () => {
    // the index is built by this first search, with glossary.md a plain file
    expect(hitsOf(await search({ pattern: "functional" }))).toHaveLength(1);
    const glossary = path.join(fixture.project, "_bmad/bmm/data/glossary.md");
    await rm(glossary);
    await symlink(path.join(fixture.outside, "secret"), glossary);
    const reply = await search({ pattern: "SECRET" });
    expect(hitsOf(reply)).toEqual([]);
    expect(reply["skipped"]).toEqual([{ path: "{project-root}/_bmad/bmm/data/glossary.md", reason: "not readable" }]);
    expect(await appErrorOf(search({ pattern: "SECRET", path: "{project-root}/.claude/skills/escape" }), fixture.base)).toMatchObject({ code: "SYMLINK_ESCAPE" });
    expect(await appErrorOf(search({ pattern: "SECRET", path: "../outside" }), fixture.base)).toMatchObject({ code: "PATH_OUTSIDE_ROOT" });
  });

  it("refuses a glob that climbs out of path", async () => {
    expect(await appErrorOf(search({ pattern: "x", glob: "../*" }), fixture.base)).toMatchObject({ code: "INVALID_PATTERN" });
  });
});
