import { readFile, rm, symlink } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { appErrorOf } from "../testing/app-error-of.js";
import { createInstalledProjectFixture, type InstalledProjectFixture } from "../testing/installed-project-fixture.js";
import { fixtureLimits } from "../testing/sandbox-fixture.js";
import { createSandbox } from "./index.js";

let fixture: InstalledProjectFixture;
beforeEach(async () => {
  fixture = await createInstalledProjectFixture({ "_bmad/custom/bundles/studio/notes.md": "custom\n" });
});
afterEach(() => fixture.cleanup());

const failure = (promise: Promise<unknown>) => appErrorOf(promise, fixture.base);
const readError = (input: string, bundlePath?: string) => failure(fixture.sandbox.read(fixture.context(bundlePath), input));

describe("Sandbox roots of an installed project: reads", () => {
  it("reads every BMAD tree and skill folder from an installed module, and the knowledge folder from the project's files", async () => {
    for (const input of ["{project-root}/_bmad/bmm/config.yaml", "{project-root}/.claude/skills/tidy-desk/SKILL.md", "{project-root}/.bmad-core/tasks/sweep.md"]) {
      expect((await fixture.sandbox.read(fixture.context(), input)).path).toBe(input.replace("{project-root}/_bmad/bmm", "{bundle-root}"));
    }
    await fixture.files.write({ kind: "project", id: "p1" }, "docs/x.md", "stored knowledge\n", fixture.author);
    expect(await fixture.sandbox.read(fixture.context(), "{project-root}/docs/x.md")).toMatchObject({ path: "{project-root}/docs/x.md", content: "stored knowledge\n" });
  });

  it("never shows the disk's other files under {project-root}: only installed BMAD folders and the project's stored files", async () => {
    // src/x.ts, package.json, docs/x.md and _bmad-output are on disk in BMAD_ROOT, but not the project's files
    expect((await readError("{project-root}/src/x.ts")).code).toBe("FILE_NOT_FOUND");
    expect((await readError("{project-root}/package.json")).code).toBe("FILE_NOT_FOUND");
    expect((await readError("{project-root}/docs/x.md")).code).toBe("FILE_NOT_FOUND");
    expect(["PATH_OUTSIDE_ROOT", "PROTECTED_PATH"]).toContain((await readError("{project-root}/.env")).code);
    await expect(fixture.sandbox.list(fixture.context(), "{project-root}/src")).rejects.toMatchObject({ code: "FILE_NOT_FOUND" });
  });

  it("denies protected names inside a BMAD tree: .env, private keys, certificates", async () => {
    for (const name of [".env", "id_rsa", "server.pem"]) expect((await readError(`{project-root}/_bmad/bmm/${name}`)).code).toBe("PROTECTED_PATH");
  });

  it("takes {core-root} from the bundle's tree: _bmad/core, or .bmad-core itself for 4.x", async () => {
    expect((await fixture.sandbox.read(fixture.context(), "{core-root}/tasks/tidy.md")).content).toBe("# Tidy task\n");
    const v4 = fixture.context(".bmad-core");
    expect((await fixture.sandbox.read(v4, "{core-root}/tasks/sweep.md")).content).toBe("# Sweep\n");
    // 4.x agents name their tasks from the project root
    expect((await fixture.sandbox.read(v4, ".bmad-core/tasks/sweep.md")).content).toBe("# Sweep\n");
  });

  it("shows a skill bundle's files under {project-root}, with {core-root} from the newest tree", async () => {
    const skill = fixture.context(".claude/skills/tidy-desk");
    expect((await fixture.sandbox.read(skill, "{bundle-root}/references/order.md")).path).toBe("{project-root}/.claude/skills/tidy-desk/references/order.md");
    expect((await fixture.sandbox.read(skill, "{core-root}/tasks/tidy.md")).path).toBe("{core-root}/tasks/tidy.md");
    expect((await fixture.sandbox.read(skill, "{project-root}/_bmad/bmm/config.yaml")).content).toContain("Lighthouse");
  });

  it("never reads a knowledge folder on disk, even one created after start as a link out of the project", async () => {
    const docs = path.join(fixture.project, "docs");
    await rm(docs, { recursive: true });
    await symlink(fixture.outside, docs);
    const sandbox = await createSandbox({ projectRoot: fixture.project, files: fixture.files, ...fixtureLimits });
    expect((await appErrorOf(sandbox.read(fixture.context(), "{project-root}/docs/secret"), fixture.base)).code).toBe("FILE_NOT_FOUND");
    await sandbox.write(fixture.context(), "{project-root}/docs/secret", "mine", fixture.author);
    expect(await readFile(path.join(fixture.outside, "secret"), "utf8")).toBe("TOP SECRET\n");
    expect((await sandbox.read(fixture.context(), "docs/secret")).content).toBe("mine");
  });

  it("keeps a custom bundle to its own folder, core and the session", async () => {
    const custom = "_bmad/custom/bundles/studio";
    expect((await fixture.sandbox.read(fixture.context(custom), "{bundle-root}/notes.md")).content).toBe("custom\n");
    expect((await readError("{project-root}/_bmad/bmm/config.yaml", custom)).code).toBe("PATH_OUTSIDE_ROOT");
    expect((await readError("{project-root}/.claude/skills/tidy-desk/SKILL.md", custom)).code).toBe("PATH_OUTSIDE_ROOT");
  });
});

describe("Sandbox roots of an installed project: attacks", () => {
  it("refuses a bundle_path that is not in a BMAD tree or one skill folder", async () => {
    for (const bundle of ["src", ".claude/skills", ".claude/skills/tidy-desk/references", "docs", "_bmad", ".claude/skills/tidy-desk/../../../src", "../outside"]) {
      expect((await readError("{bundle-root}/x.md", bundle)).code).toBe("PATH_OUTSIDE_ROOT");
    }
  });

  it("refuses a skill folder that links out of the project", async () => {
    expect((await readError("{bundle-root}/secret", ".claude/skills/escape")).code).toBe("SYMLINK_ESCAPE");
    expect((await readError("{project-root}/.claude/skills/escape/secret")).code).toBe("SYMLINK_ESCAPE");
  });

  it("refuses .. out of a skill folder", async () => {
    const skill = ".claude/skills/tidy-desk";
    // out of the skill folder into the project: its stored files, never the disk's src/x.ts
    expect((await readError("{bundle-root}/../../../src/x.ts", skill)).code).toBe("FILE_NOT_FOUND");
    expect((await readError("{bundle-root}/../../../../outside/secret", skill)).code).toBe("PATH_OUTSIDE_ROOT");
    expect((await readError("{project-root}/.claude/skills/../settings.json", skill)).code).toBe("PATH_OUTSIDE_ROOT");
  });
});

describe("Sandbox roots of an installed project: output variables", () => {
  it("maps {planning_artifacts} and {implementation_artifacts} into the project from the module config", async () => {
    const saved = await fixture.sandbox.write(fixture.context(), "{planning_artifacts}/prd.md", "p", fixture.author);
    expect(saved.path).toBe("{project-root}/_bmad-output/plans/prd.md");
    expect(new TextDecoder().decode((await fixture.files.read({ kind: "project", id: "p1" }, "_bmad-output/plans/prd.md")).content)).toBe("p");
    expect((await fixture.sandbox.write(fixture.context(), "{implementation_artifacts}/s.md", "s", fixture.author)).path).toBe(
      "{project-root}/_bmad-output/build-notes/s.md",
    );
    expect((await fixture.sandbox.read(fixture.context(), "{planning_artifacts}/prd.md")).path).toBe("{project-root}/_bmad-output/plans/prd.md");
    // nothing on disk
    await expect(readFile(path.join(fixture.project, "_bmad-output", "plans", "prd.md"))).rejects.toThrow(/ENOENT/);
  });

  it("gives an output variable the config does not name a folder of its own name under the output folder", async () => {
    expect((await fixture.sandbox.write(fixture.context(".claude/skills/tidy-desk"), "{research_artifacts}/r.md", "r", fixture.author)).path).toBe(
      "{project-root}/_bmad-output/research-artifacts/r.md",
    );
  });

  it("never writes into installed folders nor out of the project, whatever the variable", async () => {
    expect((await failure(fixture.sandbox.write(fixture.context(), "{planning_artifacts}/../../_bmad/bmm/x.md", "x", fixture.author))).code).toBe("PROTECTED_PATH");
    expect((await failure(fixture.sandbox.write(fixture.context(), "{planning_artifacts}/../../../outside/x.md", "x", fixture.author))).code).toBe("PATH_OUTSIDE_ROOT");
    expect((await failure(fixture.sandbox.write(fixture.context(), "{project-root}/_bmad/bmm/x.md", "x", fixture.author))).code).toBe("PROTECTED_PATH");
    expect((await failure(fixture.sandbox.write(fixture.context(), "{project-root}/.claude/skills/tidy-desk/x.md", "x", fixture.author))).code).toBe("PROTECTED_PATH");
    expect((await failure(fixture.sandbox.write(fixture.context(), "{output_folder}/../.bmad-core/x.md", "x", fixture.author))).code).toBe("PROTECTED_PATH");
    expect((await fixture.files.index({ kind: "project", id: "p1" })).kvRevision).toBe(0);
  });
});
