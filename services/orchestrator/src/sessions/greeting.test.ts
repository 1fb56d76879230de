import { describe, expect, it } from "vitest";
import type { AgentDefinition } from "@agent-orchestrator/shared/wire";
import type { ActionsStart } from "../agent/critical-actions.js";
import { startVariables, withStartDefaults } from "../agent/start-variables.js";
import { loadedAgentSkill, skillAgent } from "../testing/skill-agent-fixture.js";
import { buildGreeting } from "./greeting.js";

const xmlAgent: AgentDefinition = {
  id: "bmm/analyst",
  name: "Mary",
  title: "Business Analyst",
  icon: "📊",
  description: "",
  bundleName: "bmm",
  source: "module",
  format: "v6",
  persona: {
    role: "Strategic Business Analyst + Requirements Expert",
    identity: "Senior analyst.",
    communication_style: "Curious.",
    principles: "",
  },
  criticalActions: [],
  menu: [
    { trigger: "MH or fuzzy match on menu or help", description: "[MH] Redisplay Menu Help" },
    { trigger: "BP or fuzzy match on brainstorm-project", description: "[BP] Brainstorm Project: Expert Guided Facilitation", exec: "{project-root}/x.md" },
  ],
  bundlePath: "_bmad/bmm",
  filePath: "_bmad/bmm/agents/analyst.md",
};

const actionsStart = (config: Record<string, string>, instructions: string[] = []): ActionsStart => ({
  kind: "actions",
  instructions,
  files: [],
  variables: startVariables(config),
});

describe("buildGreeting for an agent started by its critical actions", () => {
  it("greets the configured user by name, introduces the persona and its role, and numbers the menu as the agent writes it", () => {
    const greeting = buildGreeting(xmlAgent, actionsStart({ user_name: "Ada", communication_language: "English" }));
    expect(greeting.text).toBe(
      [
        "Hello Ada! I'm Mary, your Business Analyst.",
        "My role: Strategic Business Analyst + Requirements Expert.",
        "",
        "Here is what I can do:",
        "1. [MH] Redisplay Menu Help",
        "2. [BP] Brainstorm Project: Expert Guided Facilitation",
        "",
        "What would you like to do? Type a number or a code from the menu, or tell me what you need.",
      ].join("\n"),
    );
    expect(greeting.menu).toEqual([
      { number: 1, trigger: "MH", description: "Redisplay Menu Help" },
      { number: 2, trigger: "BP", description: "Brainstorm Project: Expert Guided Facilitation" },
    ]);
    expect(greeting).toMatchObject({ user_name: "Ada", language: "English" });
  });

  it("names nobody when the config gives no user name (the start's neutral default is not a name)", () => {
    const greeting = buildGreeting(xmlAgent, actionsStart({}));
    expect(greeting.text.split("\n")[0]).toBe("Hello! I'm Mary, your Business Analyst.");
    expect(greeting).not.toHaveProperty("user_name");
    expect(greeting.language).toBe("English");
  });

  it("shows 4.x commands with their star, and keeps only two sentences of a long role", () => {
    const v4: AgentDefinition = {
      ...xmlAgent,
      format: "v4",
      persona: { ...xmlAgent.persona, role: "Insightful analyst. Strategic partner. Ideation expert." },
      menu: [
        { trigger: "help", description: "Show numbered list of the following commands" },
        { trigger: "*brainstorm", description: "Facilitate structured brainstorming" },
      ],
    };
    const greeting = buildGreeting(v4, actionsStart({ user_name: "Ada" }));
    expect(greeting.text).toContain("My role: Insightful analyst. Strategic partner.\n");
    expect(greeting.text).toContain("1. *help — Show numbered list of the following commands\n2. *brainstorm — Facilitate structured brainstorming");
    expect(greeting.menu.map((item) => item.trigger)).toEqual(["*help", "*brainstorm"]);
  });

  it("points at bmad-help only when the agent's activation does", () => {
    const plain = buildGreeting(xmlAgent, actionsStart({ user_name: "Ada" }));
    expect(plain.text).not.toContain("bmad-help");
    const helped = buildGreeting(xmlAgent, actionsStart({ user_name: "Ada" }, ["Let Ada know they can type command `/bmad-help` at any time"]));
    expect(helped.text).toContain("You can ask for bmad-help at any time for advice on what to do next.");
  });

  it("says honestly that the greeting is English when the user's language is another, and names the language", () => {
    const greeting = buildGreeting(xmlAgent, actionsStart({ user_name: "Ada", communication_language: "French" }));
    expect(greeting.language).toBe("French");
    expect(greeting.text).toContain("(The system wrote this greeting in English; from your next message on I will speak French.)");
  });

  it("closes with a plain question when the agent has no menu", () => {
    const greeting = buildGreeting({ ...xmlAgent, menu: [] }, actionsStart({ user_name: "Ada" }));
    expect(greeting.menu).toEqual([]);
    expect(greeting.text).not.toContain("Here is what I can do:");
    expect(greeting.text.endsWith("What would you like to work on?")).toBe(true);
  });
});

describe("buildGreeting for a skills-era agent", () => {
  const skillStart = { kind: "skill" as const, skill: loadedAgentSkill, variables: withStartDefaults(loadedAgentSkill.variables) };

  it("leads with the customized icon, takes persona and menu from the merged customization, and shows codes as [CODE]", () => {
    const greeting = buildGreeting(skillAgent, skillStart);
    const lines = greeting.text.split("\n");
    expect(lines[0]).toBe("🔎 Hello Ada! I'm Mary, your Business Analyst.");
    expect(lines[1]).toBe("My role: Help the user research before they build.");
    expect(greeting.text).toContain("Here is what I can do:\n1. [BP] Brainstorm with a guide\n2. [MR] Research a market");
    expect(greeting.menu.slice(0, 2)).toEqual([
      { number: 1, trigger: "BP", description: "Brainstorm with a guide" },
      { number: 2, trigger: "MR", description: "Research a market" },
    ]);
    expect(greeting.text).not.toContain("Analyst (registry)");
  });

  it("uses the registry's menu (a 6.3 capabilities table) for a skill without a customization", () => {
    const bare = { ...loadedAgentSkill, kind: "skill" as const, customization: {} };
    const greeting = buildGreeting(skillAgent, { kind: "skill", skill: bare, variables: withStartDefaults(bare.variables) });
    expect(greeting.text.split("\n")[0]).toBe("📊 Hello Ada! I'm Mary, your Business Analyst.");
    expect(greeting.menu).toEqual([{ number: 1, trigger: "BP", description: "Brainstorm with a guide" }]);
    expect(greeting.text).toContain("1. [BP] Brainstorm with a guide");
  });
});
