import type { AgentFormat, MenuItem, Persona } from "../wire/agent.js";
import type { RegistryWarningCode } from "../wire/registry-messages.js";
import { field, scalarText } from "./yaml-values.js";

/** Something a parser tolerated or wants the operator to know; it becomes a registry warning. */
export interface ParseNote {
  code: Extract<RegistryWarningCode, "PARSE_NOTE" | "PLACEHOLDER">;
  message: string;
}

/** One menu handler's instructions (`<handler type="workflow">…</handler>`). */
export interface MenuHandler {
  type: string;
  instructions: string;
}

/**
 * What an agent says, whatever its BMAD release: 4.x YAML blocks, 6.0-6.2 XML and `*.agent.yaml`, 6.3+ skills. Strings the file does not give are empty; the registry
 * fills ids, icons and descriptions from the bundle manifest or the module layout.
 */
export interface ParsedAgent {
  format: AgentFormat;
  id: string;
  name: string;
  title: string;
  icon: string;
  description: string;
  persona: Persona;
  /** start-up instructions in file order: v6 `<activation><step>`s, v6 early `<critical-actions><i>`s, v4 activation-instructions */
  criticalActions: string[];
  handlers: MenuHandler[];
  rules: string[];
  menu: MenuItem[];
  prompts: { id: string; content: string }[];
  notes: ParseNote[];
  /** what only a skills-era agent has (its customization's facts and extra activation steps) */
  skill?: SkillAgentExtras;
}

/** The parts of a skills-era agent's merged `[agent]` customization that the activation document shows as written. */
export interface SkillAgentExtras {
  /** literal facts and `file:` globs, as written (the tool side loads the files) */
  persistentFacts: string[];
  activationStepsPrepend: string[];
  activationStepsAppend: string[];
}

/** An agent, or why the file is not one. */
export type ParseAgentResult = { ok: true; agent: ParsedAgent } | { ok: false; reason: string };

/** The menu attributes BMAD agents use, mapped to MenuItem fields. `run-workflow` is the v6-early spelling of `workflow`. */
const menuTargetFields: ReadonlyArray<readonly [attribute: string, field: MenuTargetField]> = [
  ["workflow", "workflow"],
  ["run-workflow", "workflow"],
  ["validate-workflow", "validateWorkflow"],
  ["exec", "exec"],
  ["tmpl", "tmpl"],
  ["data", "data"],
  ["action", "action"],
];

/** MenuItem fields that hold a target path or instruction. */
type MenuTargetField = "workflow" | "validateWorkflow" | "exec" | "tmpl" | "data" | "action";

/**
 * Builds a menu item from a trigger, a description and target values looked up by attribute name. The
 * first spelling found wins for each field. A target that is the placeholder `todo` is kept and flagged.
 */
export function buildMenuItem(
  trigger: string,
  description: string,
  targetOf: (attribute: string) => string | undefined,
  notes: ParseNote[],
): MenuItem {
  const item: MenuItem = { trigger, description };
  for (const [attribute, field] of menuTargetFields) {
    const value = targetOf(attribute)?.trim();
    if (value === undefined || value === "" || item[field] !== undefined) continue;
    item[field] = value;
    // 6.2 menus invoke skills as exec="skill:<name>" (docs/bmad-releases.md); the exec value is kept as written
    if (field === "exec" && value.startsWith("skill:") && value.length > "skill:".length) item.skill = value.slice("skill:".length).trim();
    if (value.toLowerCase() === "todo") {
      item.todo = true;
      notes.push({ code: "PLACEHOLDER", message: `menu item ${trigger}: ${attribute} is the placeholder "todo"` });
    }
  }
  return item;
}

/** The persona with every field present. */
export function emptyPersona(): Persona {
  return { role: "", identity: "", communication_style: "", principles: "" };
}

/** The naming fields of a YAML agent: a v4 block's `agent` mapping, a v6 source's `agent.metadata`. */
type AgentNaming = Pick<ParsedAgent, "id" | "name" | "title" | "icon">;

/** Reads `id`, `name`, `title` and `icon` from a YAML agent's naming mapping; undefined when it has neither a name nor an id. */
export function readAgentNaming(mapping: Record<string, unknown>): AgentNaming | undefined {
  const naming = {
    id: scalarText(field(mapping, "id")),
    name: scalarText(field(mapping, "name")),
    title: scalarText(field(mapping, "title")),
    icon: scalarText(field(mapping, "icon")),
  };
  return naming.id === "" && naming.name === "" ? undefined : naming;
}
