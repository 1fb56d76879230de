import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { LoadedSkill } from "@agent-orchestrator/shared/wire";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { appErrorOf } from "../testing/app-error-of.js";
import { createInstalledProjectFixture, type InstalledProjectFixture } from "../testing/installed-project-fixture.js";
import { loadSkill } from "./load-skill.js";

const today = new Date("2026-03-04T10:00:00Z");
const skillFiles: Record<string, string> = {
  ".claude/skills/tidy-desk/SKILL.md": [
    "---",
    "name: tidy-desk",
    "description: Tidies the desk",
    "---",
    "Hello {user_name}, in {communication_language}. Layout: {workflow.layout}. Save to {workflow.output}.",
    "Root {skill-root}, name {skill-name}, project {project-root}, later {doc_workspace}, template {{title}}.",
    "",
  ].join("\n"),
  ".claude/skills/tidy-desk/customize.toml": [
    "[workflow]",
    'layout = "assets/layout.md"',
    'output = "{planning_artifacts}/desks"',
    "persistent_facts = [",
    '  "Desks face north.",',
    '  "file:{project-root}/docs/*.md",',
    '  "file:{project-root}/../outside/*",',
    '  "file:{project-root}/docs/../src/x.ts",',
    '  "file:/etc/*",',
    '  "file:{project-root}/src/*.ts",',
    '  "file:{project-root}/_bmad/bmm/.env",',
    '  "file:{project-root}/docs/missing.md",',
    '  "skill:sweep-floor",',
    "]",
    "",
  ].join("\n"),
  ".claude/skills/tidy-desk/assets/layout.md": "Pens left.\n",
  ".claude/skills/tidy-desk/.env": "NOPE=1\n",
  "_bmad/custom/tidy-desk.toml": '[workflow]\npersistent_facts = ["Team fact: lamps on."]\n',
  "_bmad/custom/tidy-desk.user.toml": "[workflow\nbroken = \n",
  ".claude/skills/helper-agent/SKILL.md": "---\nname: helper-agent\ndescription: Helps\n---\nI am {agent.icon}. Principles: {agent.principles}\nMenu: {agent.menu}\nSpeak {communication_language}.\n",
  ".claude/skills/helper-agent/customize.toml": '[agent]\nicon = "🧭"\nprinciples = ["Be kind."]\n\n[[agent.menu]]\ncode = "TD"\ndescription = "Tidy the desk"\nskill = "tidy-desk"\n',
  "_bmad/custom/helper-agent.toml": '[agent]\nicon = "🗺️"\nprinciples = ["Be brief."]\n',
  "_bmad/config.toml": '[agents.helper-agent]\nmodule = "cis"\n\n[core]\nproject_name = "Beacon"\n',
  "_bmad/cis/config.yaml": "communication_language: Klingon\n",
  "_bmad/bmm/workflows/plan/sweep-floor/SKILL.md": "---\nname: sweep-floor\ndescription: Sweeps\n---\nSweep for {user_name} in {project_name}; read {skill-root}/steps/one.md.\n",
  "_bmad/bmm/workflows/plan/sweep-floor/steps/one.md": "Step one.\n",
  ".agents/skills/shared-skill/SKILL.md": "from agents\n",
  ".claude/skills/shared-skill/SKILL.md": "from claude\n",
  "../outside/SKILL.md": "escaped\n",
};

let fixture: InstalledProjectFixture;
beforeEach(async () => {
  fixture = await createInstalledProjectFixture(skillFiles);
});
afterEach(() => fixture.cleanup());

const load = (name: string, bundle?: string) => loadSkill(fixture.sandbox, fixture.context(bundle), name, { today });
const loadError = (name: string) => appErrorOf(load(name), fixture.base);

describe("loadSkill", () => {
  it("loads a workflow skill from a tool folder with everything resolved", async () => {
    const skill = LoadedSkill.parse(await load("tidy-desk"));
    expect(skill).toMatchObject({ name: "tidy-desk", description: "Tidies the desk", path: "{project-root}/.claude/skills/tidy-desk", kind: "workflow" });
    expect(skill.instructions).toBe(
      [
        "Hello Grace, in Esperanto. Layout: {project-root}/.claude/skills/tidy-desk/assets/layout.md. Save to {project-root}/_bmad-output/plans/desks.",
        "Root {project-root}/.claude/skills/tidy-desk, name tidy-desk, project {project-root}, later {doc_workspace}, template {{title}}.",
        "",
      ].join("\n"),
    );
    expect(skill.variables).toMatchObject({
      user_name: "Grace",
      project_name: "Beacon",
      output_folder: "{project-root}/_bmad-output",
      planning_artifacts: "{project-root}/_bmad-output/plans",
      implementation_artifacts: "{project-root}/_bmad-output/build-notes",
      project_knowledge: "{project-root}/docs",
      document_output_language: "English",
      date: "2026-03-04",
    });
    expect(skill.files).toEqual([
      "{project-root}/.claude/skills/tidy-desk/assets/layout.md",
      "{project-root}/.claude/skills/tidy-desk/customize.toml",
      "{project-root}/.claude/skills/tidy-desk/references/order.md",
    ]);
    expect(JSON.stringify(skill)).not.toContain(fixture.base);
  });

  it("merges the team layer, skips an invalid user layer with a note", async () => {
    const skill = await load("tidy-desk");
    expect(skill.customization["persistent_facts"]).toContain("Team fact: lamps on.");
    expect(skill.notes).toContainEqual(expect.stringMatching(/^\{project-root\}\/_bmad\/custom\/tidy-desk\.user\.toml skipped: not valid TOML/));
  });

  it("loads literal and file facts from the readable roots and the project's files only; the rest are notes", async () => {
    // docs/x.md on disk is not the project's: the project's own docs/ is in the store
    await fixture.files.write({ kind: "project", id: "p1" }, "docs/x.md", "stored knowledge\n", fixture.author);
    await fixture.files.write({ kind: "project", id: "p2" }, "docs/other.md", "another project's\n", fixture.author);
    const skill = await load("tidy-desk");
    expect(skill.facts).toEqual([
      { source: "persistent_facts", content: "Desks face north." },
      { source: "{project-root}/docs/x.md", content: "stored knowledge\n" },
      { source: "persistent_facts", content: "Team fact: lamps on." },
    ]);
    const notes = skill.notes.join("\n");
    for (const expected of [
      '"file:{project-root}/../outside/*" not loaded: access denied',
      '"file:{project-root}/docs/../src/x.ts" not loaded: access denied',
      '"file:/etc/*" matched no readable file',
      '"file:{project-root}/src/*.ts" matched no readable file',
      '"file:{project-root}/_bmad/bmm/.env" not loaded: access denied',
      '"file:{project-root}/docs/missing.md" not loaded: file not found',
      'load it with load_skill("sweep-floor")',
    ]) {
      expect(notes).toContain(expected);
    }
    expect(JSON.stringify(skill)).not.toMatch(/TOP SECRET|SECRET=1|NOPE=1|project knowledge|another project/);
  });

  it("finds a persistent fact's project file by a ** glob in the project's stored files", async () => {
    await writeFile(
      path.join(fixture.project, ".claude/skills/tidy-desk/customize.toml"),
      '[workflow]\npersistent_facts = ["file:{project-root}/**/project-context.md", "file:{project-root}/**/nowhere.md"]\n',
    );
    await fixture.files.write({ kind: "project", id: "p1" }, "_bmad-output/project-context.md", "# Context: lighthouse keepers\n", fixture.author);
    await fixture.files.write({ kind: "project", id: "p1" }, "docs/deep/er/project-context.md", "# Deeper context\n", fixture.author);
    await fixture.files.write({ kind: "project", id: "p1" }, "docs/project-context.md.bak", "not it\n", fixture.author);
    await fixture.files.write({ kind: "project", id: "p2" }, "project-context.md", "another project's\n", fixture.author);
    await fixture.files.write({ kind: "session", id: "s1" }, "project-context.md", "a chat's scratch\n", fixture.author);
    const skill = await load("tidy-desk");
    expect(skill.facts.filter((fact) => fact.source !== "persistent_facts")).toEqual([
      { source: "{project-root}/_bmad-output/project-context.md", content: "# Context: lighthouse keepers\n" },
      { source: "{project-root}/docs/deep/er/project-context.md", content: "# Deeper context\n" },
    ]);
    expect(skill.notes.join("\n")).toContain('"file:{project-root}/**/nowhere.md" matched no readable file');
  });

  it("loads an agent skill with its layers merged and its module's config", async () => {
    const skill = await load("helper-agent");
    expect(skill.kind).toBe("agent");
    expect(skill.customization).toMatchObject({ icon: "🗺️", principles: ["Be kind.", "Be brief."] });
    expect(skill.instructions).toBe("I am 🗺️. Principles: \n- Be kind.\n- Be brief.\n\nMenu: \n- code: TD; description: Tidy the desk; skill: tidy-desk\n\nSpeak Klingon.\n");
  });

  it("finds a skill kept in a BMAD tree (6.2), taking its module from the folder", async () => {
    const skill = await load("sweep-floor");
    expect(skill).toMatchObject({ path: "{project-root}/_bmad/bmm/workflows/plan/sweep-floor", kind: "skill" });
    expect(skill.instructions).toBe("Sweep for Grace in Beacon; read {project-root}/_bmad/bmm/workflows/plan/sweep-floor/steps/one.md.\n");
    expect(skill.files).toEqual(["{project-root}/_bmad/bmm/workflows/plan/sweep-floor/steps/one.md"]);
  });

  it("takes a name found in several tool folders from the first in byte order", async () => {
    expect((await load("shared-skill")).instructions).toBe("from agents\n");
  });

  it("falls back to neutral defaults when the config says nothing", async () => {
    await writeFile(path.join(fixture.project, "_bmad/core/config.yaml"), "");
    await writeFile(path.join(fixture.project, "_bmad/bmm/config.yaml"), "");
    await writeFile(path.join(fixture.project, "_bmad/config.toml"), "");
    const skill = await load("tidy-desk");
    expect(skill.variables).toMatchObject({ user_name: "User", communication_language: "English", project_name: "P", output_folder: "{project-root}/_bmad-output" });
  });

  it("lists no file the tools could not open and offers no such folder as a close name (docs/security.md case 142)", async () => {
    const skills = path.join(fixture.project, ".claude/skills");
    await writeFile(path.join(skills, "tidy-desk/assets/evil\u001b[31m.md"), "x");
    await mkdir(path.join(skills, "tidy-desk\u202e"));
    await writeFile(path.join(skills, "tidy-desk\u202e/SKILL.md"), "---\nname: spoof\n---\nx\n");
    const skill = LoadedSkill.parse(await load("tidy-desk"));
    expect(skill.files).toContain("{project-root}/.claude/skills/tidy-desk/assets/layout.md");
    expect(skill.files.filter((file) => file.includes("evil"))).toEqual([]);
    expect(skill.notes).toContain("1 name(s) in the skill's folder are not listed: the tools cannot open them");
    const error = await loadError("tidy-dsk");
    expect(error.message).toContain("tidy-desk");
    expect(error.message).not.toContain("\u202e");
  });

  it("says SKILL_NOT_FOUND with close names", async () => {
    const error = await loadError("tidy-dsk");
    expect(error.code).toBe("SKILL_NOT_FOUND");
    expect(error.message).toContain("tidy-desk");
  });

  it("refuses names that are paths, and a skill folder that links out of the project", async () => {
    for (const name of ["../outside", "a/b", "..", ".claude"]) expect((await loadError(name)).code).toBe("VALIDATION_ERROR");
    expect((await loadError("escape")).code).toBe("SYMLINK_ESCAPE");
  });

  it("loads only what the caller may read: a custom bundle cannot open skills", async () => {
    await writeFile(path.join(fixture.project, "_bmad/custom/x.md"), "x");
    const error = await loadSkill(fixture.sandbox, fixture.context("_bmad/custom/bundles/studio"), "tidy-desk", { today }).catch((reason: unknown) => reason);
    expect(error).toMatchObject({ code: "PATH_OUTSIDE_ROOT" });
  });
});
