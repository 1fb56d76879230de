import { getOwn, type ToolName } from "@agent-orchestrator/shared/wire";
import { pathRules, toolRules } from "./system-prompt-template.js";

/** Fills a prompt template's `{{slot}}`s in one pass; a slot's value is never searched for more slots. */
export function fillTemplate(template: string, slots: Readonly<Record<string, string>>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (whole, name: string) => getOwn(slots, name) ?? whole);
}

/** `- line` per line, or `empty` when there are none. */
export const bulletList = (lines: readonly string[], empty: string): string => (lines.length ? lines.map((line) => `- ${line}`).join("\n") : empty);

/** `name: value` per variable, as a bullet list. */
export const variableList = (variables: Readonly<Record<string, string>>): string =>
  bulletList(
    Object.entries(variables).map(([key, value]) => `${key}: ${value}`),
    "(none)",
  );

/** The rules of the offered tools, then the path and data rules every agent gets. */
export function describeToolRules(tools: readonly ToolName[]): string {
  return [...tools.map((name) => toolRules[name]), pathRules].join("\n");
}
