import { readFileSync } from "node:fs";
import { join } from "node:path";
import { buildSkillAgent, parseAgentFile, parseSkillMd, parseTomlLayer, type TomlTable } from "@agent-orchestrator/shared/bmad";
import { ActivationData } from "@agent-orchestrator/shared/wire";
import { describe, expect, it } from "vitest";
import { agentFilesFolder as fixturesFolder } from "@agent-orchestrator/shared/testing";
import { agentCustomization, customizedSkill } from "../testing/install-files.js";
import { buildActivation } from "./activation-document.js";
import type { AgentRecord } from "../discovery/discovery-context.js";
import { moduleAgent } from "../discovery/module-agent.js";

function record(fixture: string, id: string, source: "bundle" | "module" = "module"): AgentRecord {
  const result = parseAgentFile(readFileSync(join(fixturesFolder, fixture), "utf8"), fixture);
  if (!result.ok) throw new Error(result.reason);
  const parsed = result.agent;
  return {
    parsed,
    definition: {
      id,
      name: parsed.name,
      title: parsed.title,
      icon: parsed.icon,
      description: parsed.description,
      bundleName: source === "module" ? id.split("/")[0] ?? id : "fixture-bundle",
      source,
      persona: parsed.persona,
      criticalActions: parsed.criticalActions,
      menu: parsed.menu,
      bundlePath: "bmad/fixture",
      filePath: `bmad/fixture/agents/${fixture}`,
    },
  };
}

describe("buildActivation", () => {
  const compiled = record("v6-compiled.md", "fixture/tester");

  it("gives the activation data: type, name, module, persona, steps with their variables, handlers, rules, menu", () => {
    const { data } = buildActivation(compiled, { userContext: "  plan my release  " });
    expect(ActivationData.parse(data)).toEqual(data);
    expect(data).toMatchObject({ type: "agent", id: "fixture/tester", name: "tester", module: "fixture", source: "module", userContext: "plan my release" });
    expect(data.persona).toEqual({
      name: "Tess",
      title: "Test Agent",
      icon: "🧪",
      role: "Fixture Role",
      identity: "Fixture identity & background.",
      communicationStyle: "Plain and short.",
      principles: "Test everything. Trust nothing.",
    });
    expect(data.activation.steps).toHaveLength(3);
    expect(data.activation.variables).toEqual(["communication_language", "project-root", "user_name"]);
    expect(Object.keys(data.activation.handlers)).toEqual(["workflow", "action"]);
    expect(data.activation.rules).toEqual(["ALWAYS communicate in {communication_language}", "Stay in character until exit selected"]);
    expect(data.menu.map((item) => item.trigger)).toEqual(["*help", "*plan", "*check", "*retro", "*doc", "*deep", "*later", "*exit"]);
    expect(data.prompts).toEqual([{ id: "deep-check", content: "Check the thing deeply." }]);
  });

  it("renders LLM-ready text: identity, numbered steps, handlers, rules, commands with targets, the request", () => {
    const { text } = buildActivation(compiled, { userContext: "plan my release\nthis week" });
    const headings = [...text.matchAll(/^## (.+)$/gm)].map((match) => match[1]);
    expect(headings).toEqual(["YOUR IDENTITY", "ACTIVATION SEQUENCE (Execute Now)", "MENU HANDLERS", "CRITICAL RULES", "PROMPTS", "AVAILABLE COMMANDS", "USER REQUEST"]);
    expect(text.startsWith("🧪 **Agent Activated: Tess** (Test Agent)")).toBe(true);
    expect(text).toContain("**Step 2:** 🚨 IMMEDIATE ACTION REQUIRED:\n- Load and read {project-root}/bmad/fixture/config.yaml NOW");
    expect(text).toContain("**Workflow Handler:**\nWhen menu item has:");
    expect(text).toContain('2. *plan - Make a plan [workflow="{project-root}/bmad/fixture/workflows/plan/workflow.yaml"]');
    expect(text).toContain('7. *later - Not built yet (not implemented yet) [workflow="todo"]');
    expect(text).toContain("> plan my release\n> this week");
    expect(text.trimEnd().endsWith("before any other output.")).toBe(true);
  });

  it("fills in the variables the caller gives and lists the ones left", () => {
    const { data, text } = buildActivation(compiled, { variables: { user_name: "Ada", "project-root": "{project-root}", constructor: "x" } });
    expect(data.activation.steps[2]).toBe("Show greeting using Ada, then display numbered list of\nALL menu items from menu section");
    expect(data.activation.variables).toEqual(["communication_language", "project-root"]);
    expect(text).not.toContain("{user_name}");
  });

  it("activates an early agent: its critical actions are the steps, no handler or rule sections", () => {
    const { data, text } = buildActivation(record("v6-early.md", "early", "bundle"));
    expect(data).toMatchObject({ name: "early", module: "fixture-bundle", source: "bundle" });
    expect(data.activation.steps[0]).toMatch(/^Load into memory \{project-root\}\/bmad\/fixture\/config.yaml/);
    expect(text).not.toContain("## MENU HANDLERS");
    expect(text).not.toContain("## USER REQUEST");
    expect(text).toContain("**Core Principles:**\n- First principle\n- Second principle");
  });

  it("activates a skills-era agent: persona, customization steps around the greeting, facts as written, skill and prompt commands", () => {
    const skillPath = ".claude/skills/bmad-agent-keeper";
    const document = parseSkillMd(customizedSkill("bmad-agent-keeper", "Kit", "Lighthouse Keeper"));
    if (!document.ok) throw new Error(document.reason);
    const table = parseTomlLayer(agentCustomization("Kit", "Lighthouse Keeper", "💡"));
    if (!table.ok) throw new Error(table.reason);
    const parsed = buildSkillAgent({ skillPath, document: document.value, customization: table.value["agent"] as TomlTable });
    const skillRecord = moduleAgent(parsed, { id: "bmm/keeper", module: "bmm", release: "6.12.0", bundlePath: skillPath, filePath: `${skillPath}/SKILL.md`, skill: { name: "bmad-agent-keeper", path: skillPath } });

    const { data, text } = buildActivation(skillRecord, { variables: { user_name: "Ada" } });
    expect(ActivationData.parse(data)).toEqual(data);
    expect(data).toMatchObject({
      name: "keeper",
      format: "skill",
      release: "6.12.0",
      skill: { name: "bmad-agent-keeper", path: skillPath },
      customization: { persistentFacts: ["file:{project-root}/docs/harbour.md"], activationStepsPrepend: ["Check the weather."], activationStepsAppend: [] },
      persona: { name: "Kit", title: "Lighthouse Keeper", icon: "💡", role: "Keeps the lighthouse.", principles: "Keep the light on.\nLog every ship." },
    });
    expect(data.activation.steps[0]).toBe("Check the weather.");
    expect(data.activation.steps[1]).toMatch(/^Greet Ada warmly by name as Kit, speaking in \{communication_language\}, and lead the greeting with 💡/);
    expect(data.activation.steps[2]).toMatch(/present the commands below/);
    expect(data.activation.variables).toEqual(["communication_language", "project-root"]);
    expect(text).not.toMatch(/resolve_customization/);
    expect(text).toContain("## PERSISTENT FACTS\n\n- file:{project-root}/docs/harbour.md");
    expect(text).toContain('1. LS - Log a ship [skill="bmad-log-ship"]');
    expect(text).toContain('2. WX - Read the weather [prompt="Look at the sky and report."]');
  });
});

