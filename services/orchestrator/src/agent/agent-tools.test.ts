import { describe, expect, it } from "vitest";
import type { AgentDefinition } from "@agent-orchestrator/shared/wire";
import { fileTools, toolsForAgent } from "./agent-tools.js";
import { skillAgent } from "../testing/skill-agent-fixture.js";

const base: AgentDefinition = {
  id: "bmm/pm",
  name: "John",
  title: "PM",
  icon: "",
  description: "",
  bundleName: "bmm",
  source: "module",
  persona: { role: "", identity: "", communication_style: "", principles: "" },
  criticalActions: [],
  menu: [{ trigger: "help", description: "Show commands" }],
  bundlePath: "_bmad/bmm",
  filePath: "_bmad/bmm/agents/pm.md",
};
const tools = (agent: AgentDefinition, subagents = false) => toolsForAgent(agent, { subagents });

describe("toolsForAgent", () => {
  it("adds run_command right after the file tools when the turn's project has a repository, whatever else the agent gets", () => {
    expect(tools(base)).not.toContain("run_command");
    const workflowAgent = { ...base, menu: [{ trigger: "DP", description: "", workflow: "{project-root}/_bmad/bmm/workflows/x/workflow.yaml" }] };
    expect(toolsForAgent(workflowAgent, { subagents: false, commands: true })).toEqual([...fileTools, "run_command", "preload_workflow"]);
  });

  it("gives every agent the file tools and nothing more when its menu needs nothing more (4.x)", () => {
    expect(tools({ ...base, format: "v4" })).toEqual(["read_file", "save_output", "edit_file", "list_files", "find_files", "search_files"]);
  });

  it("adds preload_workflow for a workflow.yaml or validate-workflow menu target (6.0.x, bundles)", () => {
    expect(tools({ ...base, menu: [{ trigger: "DP", description: "", workflow: "{project-root}/_bmad/bmm/workflows/x/workflow.yaml" }] })).toEqual([
      "read_file",
      "save_output",
      "edit_file",
      "list_files",
      "find_files",
      "search_files",
      "preload_workflow",
    ]);
    expect(tools({ ...base, menu: [{ trigger: "VP", description: "", validateWorkflow: "{bundle-root}/x/workflow.yaml" }] })).toContain("preload_workflow");
  });

  it("adds load_skill and run_script for a skill agent and for a menu that invokes a skill (6.2 exec=\"skill:x\")", () => {
    expect(tools(skillAgent)).toEqual(["read_file", "save_output", "edit_file", "list_files", "find_files", "search_files", "load_skill", "run_script"]);
    expect(tools({ ...base, menu: [{ trigger: "BP", description: "", exec: "skill:bmad-brainstorming" }] })).toContain("load_skill");
    expect(tools({ ...base, menu: [{ trigger: "BP", description: "", skill: "bmad-brainstorming" }] })).toContain("run_script");
    expect(tools({ ...base, menu: [{ trigger: "MR", description: "", exec: "{project-root}/_bmad/bmm/workflows/research.md" }] })).not.toContain("load_skill");
  });

  it("offers run_subagent to agents that use skills, and only when the orchestrator runs subagents", () => {
    expect(tools(skillAgent)).not.toContain("run_subagent");
    expect(tools(skillAgent, true)).toEqual(["read_file", "save_output", "edit_file", "list_files", "find_files", "search_files", "load_skill", "run_script", "run_subagent"]);
    expect(tools(base, true)).toEqual(["read_file", "save_output", "edit_file", "list_files", "find_files", "search_files"]);
  });
});
