import type { MenuItem, Persona } from "../wire/agent.js";
import { getOwn } from "../wire/get-own.js";
import { isTable, type TomlTable } from "./customization.js";
import type { SkillDocument } from "./skill-md.js";
import type { ParsedAgent, ParseNote } from "./parsed-agent.js";

/** Everything known about one skills-era agent, from the most to the least specific source. */
interface SkillAgentInputs {
  /** the skill folder relative to BMAD_ROOT (`.claude/skills/bmad-agent-analyst`) */
  skillPath: string;
  document: SkillDocument;
  /** the merged `[agent]` table of the customization layers (6.5+); undefined for 6.3-6.4 */
  customization?: TomlTable | undefined;
  /** `[agents.<skill>]` from the `_bmad/config.toml` layers: name, title, icon, description defaults */
  descriptor?: TomlTable | undefined;
  /** older installers' metadata (6.3 `bmad-skill-manifest.yaml`, `agent-manifest.csv` row): displayName, title, icon, role, … */
  metadata?: Readonly<Record<string, string>> | undefined;
}

/**
 * Builds a skills-era agent (6.3 onwards, docs/bmad-releases.md): persona, icon and menu from the merged customization
 * when the skill has one (6.5+), else from SKILL.md's sections (`## Identity`, `## Communication Style`,
 * `## Principles`, `## Capabilities` table, 6.3-6.4), with the install's metadata filling what both leave
 * out. Principle arrays become one principle a line.
 */
export function buildSkillAgent(inputs: SkillAgentInputs): ParsedAgent {
  const { document, customization, descriptor, metadata } = inputs;
  const notes: ParseNote[] = document.note ? [{ code: "PARSE_NOTE", message: document.note }] : [];
  const [headingName, headingTitle] = splitHeading(document.heading);
  const from = (table: TomlTable | undefined, key: string) => tomlText(table && getOwn(table, key));
  const meta = (key: string) => (metadata && getOwn(metadata, key)) ?? "";
  const section = (title: string) => document.sections.get(title) ?? "";

  const persona: Persona = {
    role: from(customization, "role") || meta("role"),
    identity: from(customization, "identity") || section("identity") || meta("identity"),
    communication_style: from(customization, "communication_style") || section("communication style") || meta("communicationStyle"),
    principles: from(customization, "principles") || bulletLines(section("principles")) || meta("principles"),
  };
  const customMenu = customization && getOwn(customization, "menu");
  const menu = customMenu !== undefined ? customizationMenu(customMenu, notes) : capabilitiesMenu(section("capabilities"), inputs.skillPath);
  const extras = {
    persistentFacts: tomlList(customization?.["persistent_facts"]),
    activationStepsPrepend: tomlList(customization?.["activation_steps_prepend"]),
    activationStepsAppend: tomlList(customization?.["activation_steps_append"]),
  };
  return {
    format: "skill",
    id: document.name,
    name: from(customization, "name") || from(descriptor, "name") || meta("displayName") || headingName,
    title: from(customization, "title") || from(descriptor, "title") || meta("title") || headingTitle,
    icon: from(customization, "icon") || from(descriptor, "icon") || meta("icon"),
    description: from(descriptor, "description") || document.description,
    persona,
    criticalActions: [...extras.activationStepsPrepend, ...extras.activationStepsAppend],
    handlers: [],
    rules: [],
    menu,
    prompts: [],
    notes,
    skill: extras,
  };
}

/** `Mary — Business Analyst` → [Mary, Business Analyst]; `Mary` → [Mary, ""]. */
function splitHeading(heading: string): [string, string] {
  const match = /^(.+?)\s+[—–-]\s+(.+)$/.exec(heading);
  return match ? [(match[1] as string).trim(), (match[2] as string).trim()] : [heading.trim(), ""];
}

/** A TOML value as text: scalars as written, arrays one item a line. */
function tomlText(value: unknown): string {
  if (typeof value === "string") return value.trim();
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return tomlList(value).join("\n");
  return "";
}

function tomlList(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value.map((item) => tomlText(item)).filter((item) => item !== "");
}

/** `- one\n- two` → `one\ntwo`; continuation lines join their item. */
function bulletLines(text: string): string {
  if (!/^\s*[-*]\s/m.test(text)) return text.trim();
  const items: string[] = [];
  for (const line of text.split("\n")) {
    const bullet = /^\s*[-*]\s+(.*)$/.exec(line);
    if (bullet) items.push((bullet[1] as string).trim());
    else if (line.trim() !== "" && items.length > 0) items[items.length - 1] = `${items[items.length - 1]} ${line.trim()}`;
  }
  return items.join("\n");
}

/** 6.5+ `[[agent.menu]]`: `code`, `description`, and one of `skill` or `prompt`. */
function customizationMenu(value: unknown, notes: ParseNote[]): MenuItem[] {
  if (!Array.isArray(value)) {
    notes.push({ code: "PARSE_NOTE", message: "agent.menu is not an array of tables; the menu is empty" });
    return [];
  }
  const items: MenuItem[] = [];
  for (const entry of value) {
    const code = isTable(entry) ? tomlText(entry["code"]) : "";
    if (!isTable(entry) || code === "") {
      notes.push({ code: "PARSE_NOTE", message: "an agent.menu entry without a code was ignored" });
      continue;
    }
    const item: MenuItem = { trigger: code, description: tomlText(entry["description"]) };
    const skill = tomlText(entry["skill"]);
    const prompt = tomlText(entry["prompt"]);
    if (skill !== "") item.skill = skill;
    if (prompt !== "") item.prompt = prompt;
    if (skill === "" && prompt === "") notes.push({ code: "PARSE_NOTE", message: `menu item ${code} has neither skill nor prompt` });
    items.push(item);
  }
  return items;
}

/**
 * 6.3-6.4 `## Capabilities` table: `| Code | Description | Skill |` (or `Skill or Prompt`, whose cells read
 * `skill: x` or `prompt: file.md`, a prompt file in the skill's folder).
 */
function capabilitiesMenu(section: string, skillPath: string): MenuItem[] {
  const rows = section
    .split("\n")
    .filter((line) => line.trim().startsWith("|"))
    .map((line) => line.trim().replace(/^\||\|$/g, "").split("|").map((cell) => cell.trim()));
  const header = rows[0]?.map((cell) => cell.toLowerCase()) ?? [];
  const codeColumn = header.indexOf("code");
  const descriptionColumn = header.indexOf("description");
  const targetColumn = header.findIndex((cell) => cell.startsWith("skill") || cell.startsWith("prompt"));
  if (codeColumn < 0) return [];
  const items: MenuItem[] = [];
  for (const row of rows.slice(1)) {
    const code = row[codeColumn] ?? "";
    if (code === "" || /^:?-+:?$/.test(code)) continue;
    const item: MenuItem = { trigger: code, description: descriptionColumn >= 0 ? (row[descriptionColumn] ?? "") : "" };
    const target = (targetColumn >= 0 ? (row[targetColumn] ?? "") : "").replace(/`/g, "");
    const prompt = /^prompt:\s*(.+)$/i.exec(target);
    if (prompt) item.prompt = `Follow the instructions in {project-root}/${skillPath}/${(prompt[1] as string).trim()}`;
    else if (target !== "") item.skill = target.replace(/^skill:\s*/i, "");
    items.push(item);
  }
  return items;
}
