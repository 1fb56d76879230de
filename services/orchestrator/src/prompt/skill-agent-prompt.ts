import { menuItemSkill, type AgentDefinition, type LoadedSkill, type ToolName } from "@agent-orchestrator/shared";
import { AgentCustomization } from "./agent-customization.js";
import { substituteVariables } from "../agent/critical-actions.js";
import { bulletList, describeToolRules, fillTemplate, isoDate, variableList } from "./prompt-parts.js";
import type { SkillStart } from "../agent/skill-start.js";
import { skillAgentPromptTemplate, skillPersonaInInstructions, personaTemplate } from "./system-prompt-template.js";

/**
 * The prompt of a skills-era agent: the persona, menu, facts and activation steps from its merged customization
 * (6.5+), the config variables, and its SKILL.md as its own instructions, with the note that the scripted
 * activation steps are already done. A 6.3–6.4 agent has no customization: its SKILL.md carries persona and
 * capabilities and is shown as it is.
 */
export function buildSkillAgentPrompt(agent: AgentDefinition, start: SkillStart, tools: readonly ToolName[], today: Date): string {
  const { skill, variables } = start;
  const custom = skill.kind === "agent" ? AgentCustomization.parse(skill.customization) : undefined;
  const name = joined(custom?.name) || agent.name || skill.name;
  const title = joined(custom?.title) || agent.title || "a BMAD agent";
  const icon = joined(custom?.icon) || agent.icon;
  return fillTemplate(skillAgentPromptTemplate, {
    name,
    title,
    icon: icon ? ` (icon ${icon})` : "",
    skill_name: skill.name,
    persona: custom
      ? fillTemplate(personaTemplate, {
          role: joined(custom.role) || agent.persona.role || "(not given)",
          identity: joined(custom.identity) || agent.persona.identity || "(not given)",
          communication_style: joined(custom.communication_style) || agent.persona.communication_style || "(not given)",
          principles: describePrinciples(custom.principles) || agent.persona.principles || "(not given)",
        })
      : skillPersonaInInstructions,
    skill_notes: skill.notes.length ? `\nNOTES FROM THE SYSTEM (what it could not do at start):\n${bulletList(skill.notes, "")}\n` : "",
    variables: variableList(variables),
    facts: describeFacts(skill.facts),
    prepend: numberedList(custom?.activation_steps_prepend ?? [], variables),
    append: numberedList(custom?.activation_steps_append ?? [], variables),
    menu: describeMenu(agent, custom),
    skill_path: skill.path,
    instructions: substituteVariables(withoutResolverSteps(skill.instructions), variables).trim(),
    skill_files: bulletList(skill.files, "(none)"),
    tool_rules: describeToolRules(tools),
    date: isoDate(today),
  });
}

/**
 * BMAD 6.5+ SKILL.md files open their activation with "Run: `uv run …/resolve_customization.py …`" (and some
 * with resolve_config.py). The system did that work (docs/design.md "Activation by the system"), so the line is replaced by a
 * pointer to the result: the model is never asked to run a resolver.
 */
export function withoutResolverSteps(instructions: string): string {
  return instructions.replace(
    /^.*\bresolve_(?:customization|config)\.py\b.*$/gm,
    "Already done by the system before this conversation (results in AGENT START above): skip this step, run no script for it.",
  );
}

const joined = (value: string | string[] | undefined): string => (Array.isArray(value) ? value.join("\n") : (value ?? "")).trim();

function describePrinciples(principles: string | string[] | undefined): string {
  return Array.isArray(principles) ? bulletList(principles, "") : (principles ?? "").trim();
}

const numberedList = (steps: readonly string[], variables: Readonly<Record<string, string>>): string =>
  steps.length ? steps.map((step, index) => `${index + 1}. ${substituteVariables(step, variables)}`).join("\n") : "(none)";

/** A literal fact as written; a fact from a file with its source, the whole content as one block. */
function describeFacts(facts: LoadedSkill["facts"]): string {
  if (facts.length === 0) return "(none)";
  return facts
    .map((fact) =>
      fact.source === fact.content || !fact.source.startsWith("file:")
        ? `- ${fact.content.trim()}`
        : `--- ${fact.source} ---\n${fact.content.trimEnd()}\n--- end of ${fact.source} ---`,
    )
    .join("\n");
}

/** The customized menu (6.5+); else the registry's menu; a 6.3 agent's capabilities table is in its instructions. */
function describeMenu(agent: AgentDefinition, custom: AgentCustomization | undefined): string {
  const items = custom?.menu?.map((item) => ({ trigger: item.code, description: item.description, skill: item.skill, prompt: item.prompt }));
  const menu = items ?? (custom ? agent.menu.map((item) => ({ ...item, skill: menuItemSkill(item) })) : []);
  if (menu.length === 0) return custom ? "(no menu)" : "(your Capabilities table, in your instructions below)";
  return menu
    .map((item, index) => {
      const action = item.skill !== undefined ? ` (skill: ${item.skill})` : item.prompt !== undefined ? ` (prompt: ${item.prompt})` : "";
      return `${index + 1}. ${item.trigger} — ${item.description}${action}`;
    })
    .join("\n");
}
