import { type SkillAgentExtras } from "@agent-orchestrator/shared/bmad";
import { getOwn, type ActivationData, type MenuItem } from "@agent-orchestrator/shared/wire";
import { renderActivationText } from "./activation-text.js";
import type { AgentRecord } from "../discovery/discovery-context.js";

/** What the caller of an activation adds to the agent's own document. */
export interface ActivationOptions {
  /** what the user asked for, shown as the reason for the activation (never substituted into) */
  userContext?: string | undefined;
  /** `{name}` values to fill in; names not given stay as written for the tool side to resolve */
  variables?: Readonly<Record<string, string>> | undefined;
}

const variablePattern = /\{([A-Za-z_][\w-]*)\}/g;

/**
 * The activation document (docs/design.md "Activation documents"): structured `data` (who to become, how to start, what can be done)
 * and the same as LLM-ready `text`, so a model can be activated in one call. Steps, handlers, rules, menu
 * targets and prompts keep their `{variables}` unless the caller gave values; `activation.variables` lists
 * the ones left.
 */
export function buildActivation(record: AgentRecord, options: ActivationOptions = {}): { data: ActivationData; text: string } {
  const { definition, parsed } = record;
  const fill = substituter(options.variables ?? {});
  const menu = definition.menu.map((item) => fillMenuItem(item, fill));
  const customization = parsed.skill && {
    persistentFacts: parsed.skill.persistentFacts.map(fill),
    activationStepsPrepend: parsed.skill.activationStepsPrepend.map(fill),
    activationStepsAppend: parsed.skill.activationStepsAppend.map(fill),
  };
  const steps = (parsed.skill ? skillActivationSteps(definition.name, definition.icon, parsed.skill) : definition.criticalActions).map(fill);
  const handlers = Object.fromEntries(parsed.handlers.map((handler) => [handler.type, fill(handler.instructions)]));
  const rules = parsed.rules.map(fill);
  const prompts = parsed.prompts.map((prompt) => ({ id: prompt.id, content: fill(prompt.content) }));
  const persona = {
    name: definition.name,
    title: definition.title,
    icon: definition.icon,
    role: fill(definition.persona.role),
    identity: fill(definition.persona.identity),
    communicationStyle: fill(definition.persona.communication_style),
    principles: fill(definition.persona.principles),
  };
  const everything = [
    ...steps,
    ...Object.values(handlers),
    ...rules,
    ...prompts.map((prompt) => prompt.content),
    ...menu.flatMap((item) => Object.values(item).filter((value): value is string => typeof value === "string")),
    persona.role,
    persona.identity,
    persona.communicationStyle,
    persona.principles,
    ...(customization?.persistentFacts ?? []),
  ];
  const data: ActivationData = {
    type: "agent",
    id: definition.id,
    name: definition.source === "module" ? (definition.id.split("/").pop() ?? definition.id) : definition.id,
    module: definition.bundleName,
    source: definition.source,
    activation: { steps, variables: variablesIn(everything), handlers, rules },
    persona,
    menu,
    prompts,
    ...(options.userContext?.trim() ? { userContext: options.userContext.trim() } : {}),
    ...(definition.format ? { format: definition.format } : {}),
    ...(definition.release ? { release: definition.release } : {}),
    ...(definition.skill ? { skill: definition.skill } : {}),
    ...(customization ? { customization } : {}),
  };
  return { data, text: renderActivationText(data) };
}

/**
 * The start of a skills-era agent, as its SKILL.md orders it (docs/bmad-releases.md): the customization's
 * prepend steps, the greeting, the append steps, then the menu. The system has already merged the
 * customization and loads config and facts itself, so no step asks the model to run BMAD's resolver script.
 */
function skillActivationSteps(name: string, icon: string, customization: SkillAgentExtras): string[] {
  const facts = customization.persistentFacts.length > 0 ? " Keep the persistent facts below in mind throughout." : "";
  return [
    ...customization.activationStepsPrepend,
    `Greet {user_name} warmly by name as ${name}, speaking in {communication_language}, and lead the greeting with ${icon}; keep prefixing your messages with ${icon} for the whole session.${facts} Remind the user they can invoke the \`bmad-help\` skill at any time.`,
    ...customization.activationStepsAppend,
    "If the user's first message already names an intent that clearly maps to a command, dispatch it directly; otherwise present the commands below as a numbered table (Code, Description, Action) and wait for input. A command with a skill is run by loading that skill (load_skill); a command with a prompt is done by following its prompt.",
  ];
}

function substituter(variables: Readonly<Record<string, string>>): (text: string) => string {
  if (Object.keys(variables).length === 0) return (text) => text;
  return (text) =>
    text.replace(variablePattern, (whole, name: string) => getOwn(variables, name) ?? whole);
}

function fillMenuItem(item: MenuItem, fill: (text: string) => string): MenuItem {
  const filled: MenuItem = { ...item, description: fill(item.description) };
  for (const field of ["workflow", "validateWorkflow", "exec", "tmpl", "data", "action", "skill", "prompt"] as const) {
    const value = item[field];
    if (value !== undefined) filled[field] = fill(value);
  }
  return filled;
}

/** The `{variables}` named in `texts`, once each, sorted. */
export function variablesIn(texts: readonly string[]): string[] {
  const names = new Set<string>();
  for (const text of texts) for (const match of text.matchAll(variablePattern)) names.add(match[1] as string);
  return [...names].sort();
}
