import { describe, expect, it } from "vitest";
import { agentShortName, isAgentFilePath } from "./scan-skill-agents.js";

describe("agentShortName", () => {
  it("keeps ids stable across releases: the part after `agent-`, without a leading module code", () => {
    expect(agentShortName("bmad-agent-analyst", "bmm")).toBe("analyst");
    expect(agentShortName("bmad-agent-ux-designer", "bmm")).toBe("ux-designer");
    expect(agentShortName("bmad-agent-bmm-pm", "bmm")).toBe("pm");
    expect(agentShortName("bmad-cis-agent-storyteller", "cis")).toBe("storyteller");
    expect(agentShortName("gds-agent-game-designer", "gds")).toBe("game-designer");
    expect(agentShortName("team-helper", "bmm")).toBe("team-helper");
  });
});

describe("isAgentFilePath", () => {
  it("tells an XML agent file from a skill folder or SKILL.md in agent-manifest.csv", () => {
    expect(isAgentFilePath("_bmad/bmm/agents/tech-writer/tech-writer.md")).toBe(true);
    expect(isAgentFilePath("_bmad/bmm/1-analysis/bmad-agent-analyst")).toBe(false);
    expect(isAgentFilePath("_bmad/bmm/1-analysis/bmad-agent-analyst/SKILL.md")).toBe(false);
  });
});
