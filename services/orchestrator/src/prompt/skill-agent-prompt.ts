import { menuItemSkill, type AgentDefinition, type LoadedSkill, type ToolName } from "@agent-orchestrator/shared/wire";
import { AgentCustomization } from "./agent-customization.js";
import { substituteVariables } from "../agent/critical-actions.js";
import { bulletList, describeToolRules, fillTemplate, variableList } from "./prompt-parts.js";
import type { SkillStart } from "../agent/skill-start.js";
import { agentPlaceholderNote, menuInInstructions, skillAgentPromptTemplate, skillPersonaInInstructions, personaInInstructions, personaTemplate } from "./system-prompt-template.js";

/**
 * The prompt of a skills-era agent: the persona, menu, facts and activation steps from its merged customization
 * (6.5+), the config variables, and its SKILL.md as its own instructions, with the note that the scripted
 * activation steps are already done. A 6.3–6.4 agent has no customization: its SKILL.md carries persona and
 * capabilities and is shown as it is. Today's date, which the tool-runner gives as the variable `date`, is left out
 * (`{date}` where it was filled in): the prompt is the same bytes every day (conversation-note.ts).
 */
export function buildSkillAgentPrompt(agent: AgentDefinition, start: SkillStart, tools: readonly ToolName[]): string {
  const { skill } = start;
  const { date, ...variables } = start.variables;
  const dated = (text: string) => (date ? text.replaceAll(date, "{date}") : text);
  const custom = skill.kind === "agent" ? AgentCustomization.parse(skill.customization) : undefined;
  const name = joined(custom?.name) || agent.name || skill.name;
  const title = joined(custom?.title) || agent.title || "a BMAD agent";
  const icon = joined(custom?.icon) || agent.icon;
  const instructions = dated(substituteVariables(withoutResolverSteps(skill.instructions), variables)).trim();
  return fillTemplate(skillAgentPromptTemplate, {
    name,
    title,
    icon: icon ? ` (icon ${icon})` : "",
    skill_name: skill.name,
    persona: !custom
      ? skillPersonaInInstructions
      : carriesPersona(custom, instructions)
        ? personaInInstructions
        : fillTemplate(personaTemplate, {
          role: joined(custom.role) || agent.persona.role || "(not given)",
          identity: joined(custom.identity) || agent.persona.identity || "(not given)",
          communication_style: joined(custom.communication_style) || agent.persona.communication_style || "(not given)",
          principles: describePrinciples(custom.principles) || agent.persona.principles || "(not given)",
        }),
    placeholder_note: /\{agent\.\w/.test(instructions) ? agentPlaceholderNote : "",
    skill_notes: skill.notes.length ? `\nNOTES FROM THE SYSTEM (what it could not do at start):\n${bulletList(skill.notes, "")}\n` : "",
    variables: variableList(date ? { ...variables, date: dateValue } : variables),
    facts: dated(describeFacts(skill.facts)),
    prepend: numberedList(custom?.activation_steps_prepend ?? [], variables),
    append: numberedList(custom?.activation_steps_append ?? [], variables),
    menu: describeMenu(agent, custom, instructions),
    skill_path: skill.path,
    instructions,
    skill_files: bulletList(skill.files, "(none)"),
    tool_rules: describeToolRules(tools),
  });
}

/** How the variable `date` is listed: the day itself is in the note before the conversation. */
const dateValue = "today's date, in the system's note at the start of the conversation";

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

/**
 * Whether the instructions as loaded already state the customized persona: 6.5+ SKILL.md files name
 * `{agent.role}`, `{agent.identity}`, … in their activation, which load_skill fills in. The prompt then does not
 * give it a second time.
 */
function carriesPersona(custom: AgentCustomization, instructions: string): boolean {
  const principles = Array.isArray(custom.principles) ? custom.principles : [joined(custom.principles)];
  const texts = [joined(custom.role), joined(custom.identity), joined(custom.communication_style), ...principles.map((text) => text.trim())].filter(Boolean);
  return texts.length > 0 && texts.every((text) => instructions.includes(text));
}

/**
 * The customized menu (6.5+); else the registry's menu; a 6.3 agent's capabilities table is in its
 * instructions, and so is a 6.5+ menu that load_skill filled in for `{agent.menu}`, which is not listed twice.
 */
function describeMenu(agent: AgentDefinition, custom: AgentCustomization | undefined, instructions: string): string {
  const items = custom?.menu?.map((item) => ({ trigger: item.code, description: item.description, skill: item.skill, prompt: item.prompt }));
  const menu = items ?? (custom ? agent.menu.map((item) => ({ ...item, skill: menuItemSkill(item) })) : []);
  if (menu.length === 0) return custom ? "(no menu)" : "(your Capabilities table, in your instructions below)";
  const inInstructions = (text: string | undefined) => text === undefined || instructions.includes(text);
  if (menu.every((item) => inInstructions(`code: ${item.trigger}`) && inInstructions(item.description) && inInstructions(item.skill ?? item.prompt))) {
    return menuInInstructions;
  }
  return menu
    .map((item, index) => {
      const action = item.skill !== undefined ? ` (skill: ${item.skill})` : item.prompt !== undefined ? ` (prompt: ${item.prompt})` : "";
      return `${index + 1}. ${item.trigger} — ${item.description}${action}`;
    })
    .join("\n");
}
