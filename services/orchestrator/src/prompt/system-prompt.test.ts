import { describe, expect, it } from "vitest";
import type { AgentDefinition } from "@agent-orchestrator/shared/wire";
import { toolsForAgent } from "../agent/agent-tools.js";
import type { ActionsStart } from "../agent/critical-actions.js";
import { buildSystemPrompt } from "./system-prompt.js";
import { startVariables } from "../agent/start-variables.js";
import { loadedAgentSkill, skillAgent } from "../testing/skill-agent-fixture.js";

const agent: AgentDefinition = {
  id: "idea-coach",
  name: "Nova",
  title: "Idea Coach",
  icon: "💡",
  description: "",
  bundleName: "idea-studio",
  source: "bundle",
  persona: { role: "Coach", identity: "Former founder", communication_style: "Short", principles: "Problems first" },
  criticalActions: [],
  menu: [
    { trigger: "*help", description: "Show commands" },
    { trigger: "*idea-brief", description: "Write a brief", workflow: "{bundle-root}/workflows/idea-brief/workflow.yaml" },
  ],
  bundlePath: "bmad/custom/bundles/idea-studio",
  filePath: "bmad/custom/bundles/idea-studio/agents/idea-coach.md",
};

const noStart: ActionsStart = { kind: "actions", instructions: [], files: [], variables: {} };
const fileTools = ["read_file", "save_output", "edit_file", "list_files", "find_files", "search_files"] as const;

describe("buildSystemPrompt", () => {
  const prompt = buildSystemPrompt(
    agent,
    {
      kind: "actions",
      instructions: ["Remember the user's name is Ada"],
      files: [{ path: "{bundle-root}/config.yaml", content: "user_name: Ada\n" }],
      variables: { user_name: "Ada", output_folder: "{project-root}/_bmad-output", communication_language: "French" },
    },
    {
      tools: toolsForAgent(agent, { subagents: false }),
      rules: {
        handlers: { workflow: "1. LOAD {project-root}/bmad/core/tasks/workflow.xml\n2. Follow it" },
        rules: ["ALWAYS communicate in {communication_language}", "Stay in character"],
      },
    },
  );

  it("puts the persona, the start instructions and the loaded config in the prompt", () => {
    expect(prompt).toContain("You are Nova, Idea Coach.");
    expect(prompt).toContain("Former founder");
    expect(prompt).toContain("- Remember the user's name is Ada");
    expect(prompt).toContain("--- {bundle-root}/config.yaml ---\nuser_name: Ada");
    expect(prompt).toContain("- output_folder: {project-root}/_bmad-output");
  });

  it("lists the menu with numbers and workflow targets", () => {
    expect(prompt).toContain("1. *help — Show commands");
    expect(prompt).toContain("2. *idea-brief — Write a brief (workflow: {bundle-root}/workflows/idea-brief/workflow.yaml)");
  });

  it("tells the model to call tools, to preload workflows and to ask one question at a time", () => {
    expect(prompt).toMatch(/CALL THEM, DO NOT DESCRIBE THEM/);
    expect(prompt).toContain("Call preload_workflow");
    expect(prompt).toContain("ask that ONE question");
    expect(prompt).toContain("{session-folder}");
  });

  it("carries the agent file's menu handlers and rules, with config variables substituted", () => {
    expect(prompt).toContain('When a menu item has workflow="…":\n1. LOAD {project-root}/bmad/core/tasks/workflow.xml');
    expect(prompt).toContain("- ALWAYS communicate in French");
    expect(prompt).toContain("- Stay in character");
  });

  it("says (none) when the agent file has no handlers or rules", () => {
    expect(buildSystemPrompt(agent, noStart, { tools: fileTools })).toMatch(/AND RULES[^\n]*\n\(none\)/);
  });

  it("points to the note that gives today's date, holds no date itself and leaves no slot unfilled", () => {
    expect(prompt).toContain("Today's date is in the system's note at the start of the conversation.");
    expect(prompt).not.toMatch(/\d{4}-\d{2}-\d{2}/);
    expect(prompt).not.toMatch(/\{\{\w+\}\}/);
  });

  it("tells an agent without workflow.yaml targets nothing about preload_workflow or skills", () => {
    const plain = buildSystemPrompt({ ...agent, menu: [{ trigger: "*help", description: "Show commands" }] }, noStart, { tools: fileTools });
    expect(plain).not.toContain("preload_workflow");
    expect(plain).not.toContain("RUNNING A WORKFLOW");
    expect(plain).not.toContain("load_skill");
    expect(plain).toContain("call read_file");
  });

  it("tells an agent with run_command that a command's /tmp ends with it, so a file a later step reads goes in its scratch space", () => {
    // bmad-build writes the diff since its baseline to a temp file that its step 4 and the review subagents read
    const withCommands = buildSystemPrompt(agent, noStart, { tools: [...fileTools, "run_command"] });
    expect(withCommands).toContain("A command's /tmp is its\n  own and is gone when it ends: a file a later step or a subagent reads (a diff to review) goes in {session-folder}.");
    expect(buildSystemPrompt(agent, noStart, { tools: fileTools })).not.toContain("A command's /tmp");
  });
});

describe("buildSystemPrompt for the releases", () => {
  it("tells a 4.x agent how its dependencies resolve inside its own tree", () => {
    const v4 = { ...agent, format: "v4" as const, bundlePath: ".bmad-core", menu: [{ trigger: "create-doc", description: "use task create-doc" }] };
    const prompt = buildSystemPrompt(v4, noStart, { tools: toolsForAgent(v4, { subagents: false }) });
    expect(prompt).toContain("This agent's dependencies map to .bmad-core/{type}/{name}");
    expect(prompt).toContain("create-doc.md → .bmad-core/tasks/create-doc.md. read_file accepts that bare path.");
  });

  it("shows a 6.2 exec=\"skill:x\" item as the skill it runs and tells the model to load it", () => {
    const xml = { ...agent, format: "v6" as const, menu: [{ trigger: "BP", description: "Brainstorm", exec: "skill:bmad-brainstorming" }] };
    const prompt = buildSystemPrompt(xml, noStart, { tools: toolsForAgent(xml, { subagents: false }) });
    expect(prompt).toContain("1. BP — Brainstorm (skill: bmad-brainstorming)");
    expect(prompt).toContain("call load_skill with its name");
    expect(prompt).not.toContain("BMAD 4 DEPENDENCIES");
  });

  it("builds a skill agent's prompt from its loaded skill", () => {
    const prompt = buildSystemPrompt(
      skillAgent,
      { kind: "skill", skill: loadedAgentSkill, variables: startVariables(loadedAgentSkill.variables) },
      { tools: toolsForAgent(skillAgent, { subagents: false }) },
    );
    expect(prompt).toContain("You are a BMAD agent defined by the skill bmad-agent-analyst.");
  });
});
