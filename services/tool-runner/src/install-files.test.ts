import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { InstallFiles } from "./install-files.js";
import { appErrorOf } from "./testing/app-error-of.js";
import { createInstalledProjectFixture, type InstalledProjectFixture } from "./testing/installed-project-fixture.js";

// `project.files.installed_*`: the install as the gateway's MCP resources see it (docs/openai-api.md "Resources").
let fixture: InstalledProjectFixture;
let install: InstallFiles;
let budget = 1024 * 1024;
beforeEach(async () => {
  fixture = await createInstalledProjectFixture({ "_bmad/bmm/.git/config": "[core]\n", "_bmad/bmm/.env.local": "TOKEN=2\n" });
  budget = 1024 * 1024;
  install = new InstallFiles(fixture.sandbox, () => budget);
});
afterEach(() => fixture.cleanup());

const readError = (path: string) => appErrorOf(install.read({ path }), fixture.base);
const installed = [
  ".bmad-core/core-config.yaml",
  ".bmad-core/tasks/sweep.md",
  ".claude/skills/tidy-desk/SKILL.md",
  ".claude/skills/tidy-desk/references/order.md",
  "_bmad/bmm/config.yaml",
  "_bmad/core/config.yaml",
  "_bmad/core/tasks/tidy.md",
];

describe("InstallFiles", () => {
  it("lists the BMAD trees' and skill folders' files by path, in pages after a path, without protected names, project files or links out (docs/security.md case 247)", async () => {
    const all = await install.list({ limit: 200 });
    expect(all).toEqual({ success: true, files: installed.map((path) => ({ path, size: expect.any(Number) as unknown, updated_at: expect.any(String) as unknown })), more: false });
    expect(all.success && all.files.find((file) => file.path === "_bmad/core/tasks/tidy.md")?.size).toBe("# Tidy task\n".length);

    const first = await install.list({ limit: 3 });
    expect(first).toMatchObject({ files: installed.slice(0, 3).map((path) => ({ path })), more: true });
    const next = await install.list({ after: installed[2], limit: 3 });
    expect(next).toMatchObject({ files: installed.slice(3, 6).map((path) => ({ path })), more: true });
    expect(await install.list({ after: installed[5], limit: 3 })).toMatchObject({ files: [{ path: installed[6] }], more: false });
  });

  it("reads an installed file as text, as read_file does", async () => {
    const content = "---\nname: tidy-desk\ndescription: Tidies the desk\n---\nTidy {skill-root}.\n";
    expect(await install.read({ path: ".claude/skills/tidy-desk/SKILL.md" })).toEqual({ success: true, path: ".claude/skills/tidy-desk/SKILL.md", size: content.length, content, truncated: false });
  });

  it("cuts a text to fit the reply and says so", async () => {
    budget = 200;
    const reply = await install.read({ path: "_bmad/bmm/config.yaml" });
    expect(reply).toMatchObject({ success: true, truncated: true });
    expect(JSON.stringify(reply).length).toBeLessThanOrEqual(200);
  });

  it("refuses .., protected names and a link out of the install (docs/security.md cases 246, 247)", async () => {
    for (const path of ["_bmad/../.env", "_bmad/bmm/../../src/x.ts", "/etc/passwd", "_bmad//bmm/config.yaml", "{project-root}/_bmad/bmm/config.yaml"]) {
      expect((await readError(path)).code, path).toMatch(/^(INVALID_PATH|UNRESOLVED_VARIABLE)$/);
    }
    for (const path of ["_bmad/bmm/.env", "_bmad/bmm/.env.local", "_bmad/bmm/id_rsa", "_bmad/bmm/server.pem", "_bmad/bmm/.git/config", ".env"]) {
      expect((await readError(path)).code, path).toBe("PROTECTED_PATH");
    }
    expect((await readError(".claude/skills/escape/secret")).code).toBe("SYMLINK_ESCAPE");
  });

  it("never answers with a project's file, whatever project the store holds (docs/security.md case 248)", async () => {
    await fixture.files.write({ kind: "project", id: "install" }, "docs/plan.md", "a project's own plan\n", fixture.author);
    await fixture.files.write({ kind: "session", id: "install" }, "notes.md", "a chat's scratch\n", fixture.author);
    for (const path of ["docs/plan.md", "docs/x.md", "src/x.ts", "package.json", "_bmad-output/plans/prd.md"]) {
      expect((await readError(path)).code, path).toBe("FILE_NOT_FOUND");
    }
  });
});
