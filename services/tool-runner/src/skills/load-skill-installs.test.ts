import { cp, mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createLogger } from "@agent-orchestrator/shared/runtime";
import { LoadedSkill } from "@agent-orchestrator/shared/wire";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBmadInstall } from "@agent-orchestrator/testing/bmad-install";
import { createSandbox } from "../sandbox/index.js";
import { openTestFileStore, type TestFileStore } from "../testing/file-store-fixture.js";
import { loadSkillTool } from "../tools/load-skill-tool.js";
import { readFileTool } from "../tools/read-file-tool.js";
import type { ToolDependencies } from "../tools/tool-handler.js";

// Against installs made by BMAD's own installer (test/support/bmad-install.ts), copied to a temp dir so a
// test may add override files. docs/bmad-releases.md describes each layout.
const logger = createLogger("tool-runner-test", "silent");
const base = await realpath(await mkdtemp(path.join(tmpdir(), "ao-skill-installs-")));
const stores: TestFileStore[] = [];
afterAll(async () => {
  await Promise.all(stores.map((store) => store.close()));
  await rm(base, { recursive: true, force: true });
});
const toolContext = (bundlePath: string) => ({ session_id: "s1", project_id: "p1", bundle_path: bundlePath, user: "ada", agent_id: "bmm/pm" });
const call = { call_id: "run1:1:call_k" };

/**
 * A copy of a real install, with `extra` files written into it, the project's own `stored` files in a file store
 * of its own, and tool dependencies over them.
 */
async function installed(version: string, label: string, extra: Record<string, string> = {}, remove: string[] = [], stored: Record<string, string> = {}) {
  const project = path.join(base, label);
  await cp(await ensureBmadInstall({ version, tool: "claude-code" }), project, { recursive: true });
  for (const [file, content] of Object.entries(extra)) {
    await mkdir(path.dirname(path.join(project, file)), { recursive: true });
    await writeFile(path.join(project, file), content);
  }
  for (const folder of remove) await rm(path.join(project, folder), { recursive: true });
  const store = await openTestFileStore();
  stores.push(store);
  for (const [file, content] of Object.entries(stored)) await store.files.write({ kind: "project", id: "p1" }, file, content, { user: "ada" });
  const sandbox = await createSandbox({
    projectRoot: project,
    files: store.files,
    readMaxBytes: 256 * 1024,
    writeMaxBytes: 256 * 1024,
    listMaxEntries: 500,
  });
  const deps: ToolDependencies = { sandbox, replyBudget: () => 1024 * 1024 - 4096, logger };
  const load = async (name: string, bundlePath: string) => {
    const result = await loadSkillTool({ name }, toolContext(bundlePath), deps, call);
    expect(JSON.stringify(result)).not.toContain(base);
    return LoadedSkill.parse(result);
  };
  return { project, deps, load };
}

describe("load_skill on a real 6.12.0 install", () => {
  let install: Awaited<ReturnType<typeof installed>>;
  beforeAll(async () => {
    install = await installed(
      "6.12.0",
      "6.12.0-team",
      {
        "_bmad/custom/bmad-agent-analyst.toml": [
        "[agent]",
        'icon = "🔭"',
        'principles = ["Name the source of every number."]',
          'persistent_facts = ["file:{project-root}/docs/*.md"]',
          "",
        ].join("\n"),
      },
      [],
      // the project's own docs/ is in the store, not in the install
      { "docs/team-notes.md": "Our product ships lighthouses.\n" },
    );
  }, 120_000);

  it("returns bmad-prd's resolved instructions, customization and files, one of which read_file opens", async () => {
    const skill = await install.load("bmad-prd", ".claude/skills/bmad-agent-pm");
    expect(skill).toMatchObject({ name: "bmad-prd", kind: "workflow", path: "{project-root}/.claude/skills/bmad-prd" });
    expect(skill.customization["prd_template"]).toBe("assets/prd-template.md");
    expect(skill.instructions).not.toContain("{skill-root}");
    expect(skill.instructions).not.toMatch(/\{workflow\.[a-z_]+\}/);
    expect(skill.instructions).toContain("{project-root}/.claude/skills/bmad-prd/assets/prd-template.md");
    expect(skill.variables).toMatchObject({ user_name: "Ada", planning_artifacts: "{project-root}/_bmad-output/planning-artifacts", output_folder: "{project-root}/_bmad-output" });
    const reference = skill.files.find((file) => file.startsWith("{project-root}/.claude/skills/bmad-prd/references/"));
    expect(reference).toBeDefined();
    const read = await readFileTool({ file_path: reference ?? "" }, toolContext(".claude/skills/bmad-agent-pm"), install.deps, call);
    expect(read).toMatchObject({ success: true, path: reference });
  });

  it("returns the analyst as an agent with the team override's icon, principle and file fact", async () => {
    const skill = await install.load("bmad-agent-analyst", ".claude/skills/bmad-agent-analyst");
    expect(skill.kind).toBe("agent");
    expect(skill.customization["icon"]).toBe("🔭");
    const principles = skill.customization["principles"] as string[];
    expect(principles.at(-1)).toBe("Name the source of every number.");
    expect(principles.length).toBeGreaterThan(1);
    expect((skill.customization["menu"] as Array<{ code: string }>).map((item) => item.code)).toContain("BP");
    expect(skill.facts).toContainEqual({ source: "{project-root}/docs/team-notes.md", content: "Our product ships lighthouses.\n" });
    expect(skill.instructions).toContain("🔭");
  });

  it("returns the shipped icon 📊 and menu without overrides", async () => {
    const plain = await installed("6.12.0", "6.12.0-plain");
    const skill = await plain.load("bmad-agent-analyst", ".claude/skills/bmad-agent-analyst");
    expect(skill).toMatchObject({ kind: "agent", customization: { icon: "📊" } });
    expect((skill.customization["menu"] as unknown[]).length).toBeGreaterThan(3);
    expect(skill.instructions).toContain("📊");
    expect(skill.instructions).not.toContain("{agent.");
  });
});

describe("load_skill on real 6.2.0 and 6.3.0 installs", () => {
  it("6.2.0: finds a skill kept under _bmad/ and opens its step files", async () => {
    const install = await installed("6.2.0", "6.2.0", {}, [".claude/skills/bmad-create-product-brief"]);
    const skill = await install.load("bmad-create-product-brief", "_bmad/bmm");
    expect(skill).toMatchObject({ kind: "skill", path: "{project-root}/_bmad/bmm/workflows/1-analysis/bmad-create-product-brief" });
    expect(skill.instructions).toContain("{project-root}/_bmad/bmm/workflows/1-analysis/bmad-create-product-brief/workflow.md");
    expect(skill.variables).toMatchObject({ user_name: "Ada", planning_artifacts: "{project-root}/_bmad-output/planning-artifacts" });
    const step = skill.files.find((file) => file.includes("/steps/"));
    expect(await readFileTool({ file_path: step ?? "" }, toolContext("_bmad/bmm"), install.deps, call)).toMatchObject({ success: true });
  });

  it("6.3.0: loads an agent skill that has no customize.toml", async () => {
    const install = await installed("6.3.0", "6.3.0");
    const skill = await install.load("bmad-agent-analyst", ".claude/skills/bmad-agent-analyst");
    expect(skill).toMatchObject({ kind: "skill", customization: {}, variables: { user_name: "Ada", planning_artifacts: "{project-root}/_bmad-output/planning-artifacts" } });
    expect(skill.instructions).toContain("Mary");
    expect(skill.notes).toEqual([]);
  });
});
