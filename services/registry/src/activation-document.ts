import type { ActivationData, MenuItem } from "@agent-orchestrator/shared";
import { renderActivationText } from "./activation-text.js";
import type { AgentRecord } from "./discovery-context.js";

/** What the caller of an activation adds to the agent's own document. */
export interface ActivationOptions {
  /** what the user asked for, shown as the reason for the activation (never substituted into) */
  userContext?: string | undefined;
  /** `{name}` values to fill in; names not given stay as written for the tool side to resolve */
  variables?: Readonly<Record<string, string>> | undefined;
}

const variablePattern = /\{([A-Za-z_][\w-]*)\}/g;

/**
 * The activation document of spec/004: structured `data` (who to become, how to start, what can be done)
 * and the same as LLM-ready `text`, so a model can be activated in one call. Steps, handlers, rules, menu
 * targets and prompts keep their `{variables}` unless the caller gave values; `activation.variables` lists
 * the ones left.
 */
export function buildActivation(record: AgentRecord, options: ActivationOptions = {}): { data: ActivationData; text: string } {
  const { definition, parsed } = record;
  const fill = substituter(options.variables ?? {});
  const menu = definition.menu.map((item) => fillMenuItem(item, fill));
  const steps = definition.criticalActions.map(fill);
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
  };
  return { data, text: renderActivationText(data) };
}

function substituter(variables: Readonly<Record<string, string>>): (text: string) => string {
  if (Object.keys(variables).length === 0) return (text) => text;
  return (text) =>
    text.replace(variablePattern, (whole, name: string) =>
      Object.prototype.hasOwnProperty.call(variables, name) ? (variables[name] as string) : whole,
    );
}

function fillMenuItem(item: MenuItem, fill: (text: string) => string): MenuItem {
  const filled: MenuItem = { ...item, description: fill(item.description) };
  for (const field of ["workflow", "validateWorkflow", "exec", "tmpl", "data", "action"] as const) {
    const value = item[field];
    if (value !== undefined) filled[field] = fill(value);
  }
  return filled;
}

function variablesIn(texts: readonly string[]): string[] {
  const names = new Set<string>();
  for (const text of texts) for (const match of text.matchAll(variablePattern)) names.add(match[1] as string);
  return [...names].sort();
}
