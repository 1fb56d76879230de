import { describe, expect, it } from "vitest";
import type { AgentDefinition } from "@agent-orchestrator/shared";
import { buildSystemPrompt } from "./system-prompt.js";

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

describe("buildSystemPrompt", () => {
  const prompt = buildSystemPrompt(
    agent,
    {
      instructions: ["Remember the user's name is Ada"],
      files: [{ path: "{bundle-root}/config.yaml", content: "user_name: Ada\n" }],
      variables: { user_name: "Ada", output_folder: "{session-folder}", communication_language: "French" },
    },
    {
      handlers: { workflow: "1. LOAD {project-root}/bmad/core/tasks/workflow.xml\n2. Follow it" },
      rules: ["ALWAYS communicate in {communication_language}", "Stay in character"],
    },
    new Date("2026-11-22T10:00:00Z"),
  );

  it("puts the persona, the start instructions and the loaded config in the prompt", () => {
    expect(prompt).toContain("You are Nova, Idea Coach.");
    expect(prompt).toContain("Former founder");
    expect(prompt).toContain("- Remember the user's name is Ada");
    expect(prompt).toContain("--- {bundle-root}/config.yaml ---\nuser_name: Ada");
    expect(prompt).toContain("- output_folder: {session-folder}");
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
    expect(buildSystemPrompt(agent, { instructions: [], files: [], variables: {} })).toMatch(/AND RULES[^\n]*\n[^\n]*\n\(none\)/);
  });

  it("states today's date and leaves no slot unfilled", () => {
    expect(prompt).toContain("Today's date is 2026-11-22.");
    expect(prompt).not.toMatch(/\{\{\w+\}\}/);
  });
});
