import { getOwn } from "../wire/get-own.js";
import { isTable, type TomlTable } from "./customization.js";

/** What `{name}` placeholders in a skill's text may be replaced with. */
export interface SkillTextScope {
  /** `{skill-root}`: the skill's folder as a virtual path */
  skillRoot: string;
  skillName: string;
  /** the merged customization: `{agent.x}` and `{workflow.x}` look in its `agent` and `workflow` tables */
  customization: TomlTable;
  /** config variables (`{user_name}`, `{planning_artifacts}`), already mapped */
  variables: Readonly<Record<string, string>>;
  /** the skill's files relative to its folder (`assets/prd-template.md`): such a value is shown as a virtual path */
  files: ReadonlySet<string>;
}

// `{name}`, `{agent.icon}`, `{skill-root}`, but not the template placeholders `{{name}}` the model fills in
const placeholder = /(?<!\{)\{([A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*)\}(?!\})/g;
const maxExpansion = 256 * 1024;

/**
 * Resolves a skill's placeholders the way BMAD's activation would (docs/bmad-releases.md, "Skill
 * conventions"): `{skill-root}`, `{skill-name}`, `{agent.x}`/`{workflow.x}` from the merged customization, and
 * config variables. `{project-root}` and any name without a value stay as written (the first is a virtual
 * root, the others are filled by the model at run time, like `{doc_workspace}`). Customization values are
 * resolved once more for config variables (`prd_output_path = "{planning_artifacts}/prds"`); a value that
 * names one of the skill's files (`assets/prd-template.md`), and a `./file` of the skill in the text, become
 * virtual paths.
 */
export function resolveSkillText(text: string, scope: SkillTextScope): string {
  let budget = maxExpansion;
  const resolved = text.replace(placeholder, (whole, name: string) => {
    const value = placeholderValue(name, scope);
    if (value === undefined || value.length > budget) return whole;
    budget -= value.length;
    return value;
  });
  // `./workflow.md` in a skill means its own file; read_file would take it from the project root
  return resolved.replace(dotRelative, (whole, relative: string) => {
    const file = relative.replace(/\.+$/, "");
    return scope.files.has(file) ? `${scope.skillRoot}/${file}${relative.slice(file.length)}` : whole;
  });
}

const dotRelative = /(?<![\w/.{}-])\.\/([A-Za-z0-9_][A-Za-z0-9_./-]*)/g;

function placeholderValue(name: string, scope: SkillTextScope): string | undefined {
  if (name === "skill-root") return scope.skillRoot;
  if (name === "skill-name") return scope.skillName;
  const dot = name.indexOf(".");
  if (dot > 0) {
    const table = name.slice(0, dot);
    if (table !== "agent" && table !== "workflow") return undefined;
    const value = lookup(scope.customization, name.split("."));
    return value === undefined ? undefined : renderValue(value, (text) => resolveValueText(text, scope));
  }
  return getOwn(scope.variables, name);
}

/** A customization string: config variables and `{skill-root}` resolved; a bare path to one of the skill's files made virtual. */
function resolveValueText(text: string, scope: SkillTextScope): string {
  const relative = text.replace(/^\.\//, "");
  if (scope.files.has(relative)) return `${scope.skillRoot}/${relative}`;
  return text.replace(placeholder, (whole, name: string) => {
    if (name === "skill-root") return scope.skillRoot;
    if (name === "skill-name") return scope.skillName;
    return getOwn(scope.variables, name) ?? whole;
  });
}

function lookup(table: TomlTable, keys: readonly string[]): unknown {
  let current: unknown = table;
  for (const key of keys) {
    if (!isTable(current)) return undefined;
    current = getOwn(current, key);
  }
  return current;
}

/**
 * A value as text for the model: scalars as they are, a list of strings as a bullet list ("(none)" when
 * empty), a list of tables one readable line each (`code: BP; description: …; skill: …`), a table as JSON.
 */
export function renderValue(value: unknown, text: (raw: string) => string = (raw) => raw): string {
  if (typeof value === "string") return text(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) {
    if (value.length === 0) return "(none)";
    const lines = value.map((item) => {
      if (isTable(item)) return `- ${Object.entries(item).map(([key, field]) => `${key}: ${inline(field, text)}`).join("; ")}`;
      return `- ${inline(item, text)}`;
    });
    return `\n${lines.join("\n")}\n`;
  }
  return JSON.stringify(value);
}

function inline(value: unknown, text: (raw: string) => string): string {
  if (typeof value === "string") return text(value).replace(/\s*\n\s*/g, " ");
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}
