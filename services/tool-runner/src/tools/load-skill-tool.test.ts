import { createLogger } from "@agent-orchestrator/shared/runtime";
import { LoadedSkill } from "@agent-orchestrator/shared/wire";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createInstalledProjectFixture, type InstalledProjectFixture } from "../testing/installed-project-fixture.js";
import { fitSkillToBudget, loadSkillTool, truncationMarker } from "./load-skill-tool.js";
import { readFileTool } from "./read-file-tool.js";
import { jsonBytes } from "../reply-budget.js";
import type { ToolDependencies } from "./tool-handler.js";

const logger = createLogger("tool-runner-test", "silent");
let fixture: InstalledProjectFixture;
let deps: ToolDependencies;
const call = { call_id: "run1:1:call_k" };
beforeEach(async () => {
  fixture = await createInstalledProjectFixture({ ".claude/skills/tidy-desk/SKILL.md": `---\nname: tidy-desk\n---\n${"Tidy every drawer. ".repeat(200)}\n` });
  deps = { sandbox: fixture.sandbox, replyBudget: () => 1_000_000, logger };
});
afterEach(() => fixture.cleanup());

describe("loadSkillTool", () => {
  it("returns a LoadedSkill whose files read_file opens", async () => {
    const context = fixture.toolContext(".claude/skills/tidy-desk");
    const skill = LoadedSkill.parse(await loadSkillTool({ name: "tidy-desk" }, context, deps, call));
    const reference = skill.files.find((file) => file.includes("/references/"));
    expect(reference).toBe("{project-root}/.claude/skills/tidy-desk/references/order.md");
    expect(await readFileTool({ file_path: reference ?? "" }, context, deps, call)).toMatchObject({ success: true, path: reference, content: "Books first.\n" });
  });

  it("gives the agent's own start the same skill as a load the model asks for, and writes nothing", async () => {
    const context = fixture.toolContext(".claude/skills/tidy-desk");
    const started = LoadedSkill.parse(await loadSkillTool({ name: "tidy-desk" }, { ...context, agent_start: true }, deps, call));
    const asked = LoadedSkill.parse(await loadSkillTool({ name: "tidy-desk" }, context, deps, call));
    expect(started).toEqual(asked);
    expect((await fixture.files.index({ kind: "session", id: "s1" })).kvRevision).toBe(0);
    expect((await fixture.files.index({ kind: "project", id: "p1" })).kvRevision).toBe(0);
  });

  it("cuts the instructions to fit the reply budget, with a marker and a note", async () => {
    const skill = LoadedSkill.parse(await loadSkillTool({ name: "tidy-desk" }, fixture.toolContext(), { ...deps, replyBudget: () => 1500 }, call));
    expect(jsonBytes(skill)).toBeLessThanOrEqual(1500);
    expect(skill.instructions.endsWith(truncationMarker)).toBe(true);
    expect(skill.notes).toContain("{project-root}/.claude/skills/tidy-desk/SKILL.md was cut to fit the reply");
  });

  it("cuts the largest of instructions and facts first, and fails only when nothing is left to cut", () => {
    const skill: LoadedSkill = {
      success: true,
      name: "n",
      description: "",
      path: "{project-root}/.claude/skills/n",
      kind: "skill",
      instructions: "short",
      customization: {},
      variables: {},
      facts: [{ source: "{project-root}/docs/big.md", content: "b".repeat(5000) }],
      files: [],
      notes: [],
    };
    fitSkillToBudget(skill, 1200);
    expect(jsonBytes(skill)).toBeLessThanOrEqual(1200);
    expect(skill.instructions).toBe("short");
    expect(skill.facts[0]?.content.endsWith(truncationMarker)).toBe(true);
    expect(() => fitSkillToBudget({ ...skill, files: ["x".repeat(2000)] }, 1200)).toThrow(expect.objectContaining({ code: "PAYLOAD_TOO_LARGE" }));
  });
});
