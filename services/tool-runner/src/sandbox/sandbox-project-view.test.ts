import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { appErrorOf } from "../testing/app-error-of.js";
import { createInstalledProjectFixture, type InstalledProjectFixture } from "../testing/installed-project-fixture.js";

// The model sees a BMAD project as in an IDE (docs/projects.md "Paths"): `{project-root}` holds the
// installed BMAD folders, read-only from BMAD_ROOT, and everything else is the project's own files in the store,
// shared by the project's chats; `{session-folder}` is each chat's own scratch space.
let fixture: InstalledProjectFixture;
beforeEach(async () => {
  fixture = await createInstalledProjectFixture();
});
afterEach(() => fixture.cleanup());

/** A chat of a project, with the installed module `_bmad/bmm` (the fixture's config names `_bmad-output/plans`). */
const chat = (sessionId: string, projectId = "p1", bundlePath = "_bmad/bmm") => ({ session_id: sessionId, project_id: projectId, bundle_path: bundlePath });
const failure = (promise: Promise<unknown>) => appErrorOf(promise, fixture.base);

describe("the project view of {project-root}", () => {
  it("lets another chat of the project read the brief one chat saved, by the path BMAD names; another project does not see it (docs/security.md case 151)", async () => {
    const mary = chat("s1");
    const saved = await fixture.sandbox.write(mary, "{planning_artifacts}/brief.md", "# Lighthouse brief\n", { user: "alice", session_id: "s1", agent_id: "bmm/analyst" });
    expect(saved).toEqual({ path: "{project-root}/_bmad-output/plans/brief.md", size: 19, revision: 1 });

    const john = chat("s2");
    expect(await fixture.sandbox.read(john, "{project-root}/_bmad-output/plans/brief.md")).toMatchObject({ content: "# Lighthouse brief\n", revision: 1 });
    expect((await fixture.sandbox.read(john, "{planning_artifacts}/brief.md")).content).toBe("# Lighthouse brief\n");
    expect((await fixture.sandbox.list(john, "{planning_artifacts}")).entries).toEqual([{ name: "brief.md", type: "file", size: 19 }]);
    // who wrote it stays with the revision
    expect((await fixture.files.stat({ kind: "project", id: "p1" }, "_bmad-output/plans/brief.md"))?.author).toMatchObject({ user: "alice", session_id: "s1" });

    const stranger = chat("s3", "p2");
    expect((await failure(fixture.sandbox.read(stranger, "{project-root}/_bmad-output/plans/brief.md"))).code).toBe("FILE_NOT_FOUND");
    expect((await failure(fixture.sandbox.read(stranger, "{project-root}/../p1/_bmad-output/plans/brief.md"))).code).toBe("PATH_OUTSIDE_ROOT");
    expect((await failure(fixture.sandbox.list(stranger, "{project-root}/_bmad-output"))).code).toBe("FILE_NOT_FOUND");
  });

  it("lists {project-root} as the installed BMAD folders merged with the project's own folders", async () => {
    await fixture.sandbox.write(chat("s1"), "{planning_artifacts}/prd.md", "p", fixture.author);
    await fixture.sandbox.write(chat("s1"), "docs/architecture.md", "a", fixture.author);
    await fixture.sandbox.write(chat("s1"), "README.md", "r", fixture.author);
    const listing = await fixture.sandbox.list(chat("s2"), "{project-root}");
    expect(listing.entries).toEqual([
      { name: ".bmad-core", type: "directory", size: 0 },
      { name: ".claude", type: "directory", size: 0 },
      { name: "README.md", type: "file", size: 1 },
      { name: "_bmad", type: "directory", size: 0 },
      { name: "_bmad-output", type: "directory", size: 0 },
      { name: "docs", type: "directory", size: 0 },
    ]);
    // the disk's other files of BMAD_ROOT (src/, package.json, .env) are not the project's
    expect(JSON.stringify(listing)).not.toMatch(/src|package\.json|\.env/);
    // the installed folders open as on disk, the tool folder as the way to its skills
    expect((await fixture.sandbox.list(chat("s2"), "{project-root}/.claude")).entries).toEqual([{ name: "skills", type: "directory", size: 0 }]);
    expect((await fixture.sandbox.list(chat("s2"), "{project-root}/_bmad")).entries.map((entry) => entry.name)).toEqual(["bmm", "core"]);
  });

  it("lets a 4.x agent write docs/prd.md into the project, where a 6.x chat of the project reads it", async () => {
    const v4 = chat("s1", "p1", ".bmad-core");
    expect((await fixture.sandbox.write(v4, "docs/prd.md", "# PRD\n", fixture.author)).path).toBe("{project-root}/docs/prd.md");
    await fixture.sandbox.write(v4, "docs/stories/1.1.story.md", "story", fixture.author);
    expect((await fixture.sandbox.read(chat("s2"), "{project-root}/docs/prd.md")).content).toBe("# PRD\n");
    expect((await fixture.sandbox.list(v4, "docs")).entries).toEqual([
      { name: "prd.md", type: "file", size: 6 },
      { name: "stories", type: "directory", size: 0 },
    ]);
    // the installed 4.x tree stays as it was, and nothing is written to disk
    expect((await fixture.sandbox.read(v4, ".bmad-core/tasks/sweep.md")).content).toBe("# Sweep\n");
    expect(existsSync(path.join(fixture.project, "docs", "prd.md"))).toBe(false);
  });

  it("refuses writes under BMAD's install folders, installed or not (docs/security.md case 152)", async () => {
    for (const target of [
      "{project-root}/_bmad/bmm/config.yaml",
      "{project-root}/_bmad/new-module/x.md",
      "_bmad/core/tasks/tidy.md",
      "{project-root}/.claude/skills/tidy-desk/SKILL.md",
      "{project-root}/.claude/settings.json",
      "{project-root}/.bmad-core/tasks/sweep.md",
      "{project-root}/.bmad-core/new.md",
      "{project-root}/.bmad-infrastructure-devops/x.md",
      "{project-root}/bmad/x.md",
      "{project-root}/.cursor/rules/x.md",
      "{core-root}/tasks/tidy.md",
      "{bundle-root}/config.yaml",
    ]) {
      expect({ target, code: (await failure(fixture.sandbox.write(chat("s1"), target, "pwned", fixture.author))).code }).toEqual({ target, code: "PROTECTED_PATH" });
    }
    expect((await fixture.sandbox.read(chat("s1"), "{project-root}/_bmad/core/tasks/tidy.md")).content).toBe("# Tidy task\n");
    expect((await fixture.files.index({ kind: "project", id: "p1" })).kvRevision).toBe(0);
  });

  it("refuses protected names in the project and in the chat's space, reads and writes, whatever their case (docs/security.md cases 27, 28)", async () => {
    for (const name of [".env", ".env.local", ".git/config", "docs/.git/hooks/pre-commit", ".npmrc", "keys/id_rsa", "certs/server.pem", "docs/.GIT/config", ".tool-calls/x.json"]) {
      for (const input of [`{project-root}/${name}`, `{session-folder}/${name}`, `{output_folder}/${name}`]) {
        const written = await failure(fixture.sandbox.write(chat("s1"), input, "x", fixture.author));
        expect(["PROTECTED_PATH", "PATH_OUTSIDE_ROOT"], input).toContain(written.code);
        const read = await failure(fixture.sandbox.read(chat("s1"), input));
        expect(["PROTECTED_PATH", "PATH_OUTSIDE_ROOT"], input).toContain(read.code);
      }
    }
    expect((await fixture.files.index({ kind: "project", id: "p1" })).kvRevision).toBe(0);
    expect((await fixture.files.index({ kind: "session", id: "s1" })).kvRevision).toBe(0);
  });

  it("keeps {session-folder} files to their own chat (docs/security.md case 151)", async () => {
    await fixture.sandbox.write(chat("s1"), "{session-folder}/memlog.md", "mine", fixture.author);
    await fixture.sandbox.write(chat("s2"), "{session-folder}/memlog.md", "theirs", { user: "bob", session_id: "s2" });
    expect((await fixture.sandbox.read(chat("s1"), "{session-folder}/memlog.md")).content).toBe("mine");
    expect((await fixture.sandbox.read(chat("s2"), "{session-folder}/memlog.md")).content).toBe("theirs");
    expect((await failure(fixture.sandbox.read(chat("s3"), "{session-folder}/memlog.md"))).code).toBe("FILE_NOT_FOUND");
    expect((await failure(fixture.sandbox.read(chat("s1"), "{session-folder}/../s2/memlog.md"))).code).toBe("PATH_OUTSIDE_ROOT");
    // not a project file either
    expect((await failure(fixture.sandbox.read(chat("s2"), "{project-root}/memlog.md"))).code).toBe("FILE_NOT_FOUND");
    expect((await fixture.sandbox.list(chat("s3"), "{session-folder}")).entries).toEqual([]);
  });

  it("tells where a path lands without touching it", async () => {
    expect(await fixture.sandbox.locate(chat("s1"), "{planning_artifacts}/brief.md", "write")).toMatchObject({
      kind: "stored",
      space: { kind: "project", id: "p1" },
      path: "_bmad-output/plans/brief.md",
      virtualPath: "{project-root}/_bmad-output/plans/brief.md",
    });
    expect(await fixture.sandbox.locate(chat("s1"), "{session-folder}/a/b.md", "write")).toMatchObject({ kind: "stored", space: { kind: "session", id: "s1" }, path: "a/b.md" });
    expect(await fixture.sandbox.locate(chat("s1"), "{project-root}/_bmad/core/tasks/tidy.md", "read")).toMatchObject({ kind: "installed", virtualPath: "{core-root}/tasks/tidy.md" });
  });
});
