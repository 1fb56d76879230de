import { describe, expect, it } from "vitest";
import type { ToolResult } from "@agent-orchestrator/shared/wire";
import { startSkillAgent } from "./skill-start.js";
import { loadedAgentSkill, skillAgent } from "../testing/skill-agent-fixture.js";

describe("startSkillAgent", () => {
  it("loads the agent's skill once and fills in the variables the skill's config left out", async () => {
    const asked: string[] = [];
    const start = await startSkillAgent(skillAgent, async (name) => {
      asked.push(name);
      return { ...loadedAgentSkill, variables: { user_name: "Ada" } };
    });
    expect(asked).toEqual(["bmad-agent-analyst"]);
    expect(start.kind).toBe("skill");
    expect(start.skill.customization).toMatchObject({ icon: "🔎" });
    expect(start.variables).toMatchObject({ user_name: "Ada", communication_language: "English", output_folder: "{project-root}/_bmad-output" });
  });

  it("keeps the output folders the tool-runner resolved, nested ones included", async () => {
    const mapped = { user_name: "Ada", planning_artifacts: "{project-root}/_bmad-output/planning-artifacts", test_artifacts: "{project-root}/_bmad-output/qa/test-artifacts" };
    const start = await startSkillAgent(skillAgent, async () => ({ ...loadedAgentSkill, variables: mapped }));
    expect(start.variables).toMatchObject(mapped);
  });

  it("stops with AGENT_INIT_FAILED naming the skill when load_skill fails", async () => {
    const failure: ToolResult = { success: false, error: { code: "SKILL_NOT_FOUND", message: "No skill named bmad-agent-analyst" } };
    await expect(startSkillAgent(skillAgent, async () => failure)).rejects.toMatchObject({
      code: "AGENT_INIT_FAILED",
      message: expect.stringContaining("its skill bmad-agent-analyst could not be loaded (No skill named bmad-agent-analyst)"),
    });
  });

  it("stops with AGENT_INIT_FAILED when the result is not a loaded skill", async () => {
    await expect(startSkillAgent(skillAgent, async () => ({ success: true, content: "SKILL.md text" }))).rejects.toMatchObject({
      code: "AGENT_INIT_FAILED",
      message: expect.stringContaining("bmad-agent-analyst"),
    });
  });

  it("stops with AGENT_INIT_FAILED when a skill agent names no skill", async () => {
    const { skill: _skill, ...nameless } = skillAgent;
    await expect(startSkillAgent(nameless, async () => loadedAgentSkill)).rejects.toMatchObject({ code: "AGENT_INIT_FAILED" });
  });
});
