import { centralConfigLayers, isTable, mapOutputVariables, mergeLayers, parseBmadYaml, withSettingsAnswers, type TomlTable } from "@agent-orchestrator/shared/bmad";
import { getOwn, isForbiddenKey, type SettingsLayers } from "@agent-orchestrator/shared/wire";
import type { OptionalFiles } from "./optional-file.js";

/** Values BMAD's skills fall back to when the config lacks them ("missing keys → neutral defaults"). */
export const variableDefaults: Readonly<Record<string, string>> = {
  user_name: "User",
  communication_language: "English",
  document_output_language: "English",
  output_folder: "_bmad-output",
};

/** Where a skill's config comes from. */
export interface SkillVariableSources {
  name: string;
  /** the BMAD tree holding the config, as a virtual path (`{project-root}/_bmad`); none for a project without one */
  configTree: string | undefined;
  /** the module folder the skill is in, when it sits in a BMAD tree (`bmm` for `_bmad/bmm/workflows/x`) */
  folderModule: string | undefined;
  /** `project_name` when the config has none: the project folder's name */
  projectName: string;
  today: Date;
  /** the chat's project's and member's answers, merged over the install's (docs/settings.md) */
  settings?: SettingsLayers | undefined;
}

/**
 * The config variables of a skill (docs/bmad-releases.md, "Config"): `<tree>/core/config.yaml`, then its
 * module's `config.yaml` and `config.user.yaml`, then the `[core]` and `[modules.<module>]` tables of
 * `<tree>/config.toml` (+ `config.user.toml`, `custom/config.toml`, `custom/config.user.toml`), later winning.
 * The module is `[agents.<name>].module` of that config, else the module folder the skill is in, else `bmm`.
 * Then the chat's project's answers, then its member's (docs/settings.md). Defaults fill what is missing; output
 * variables are mapped inside the project; `date` is today.
 */
export async function loadSkillVariables(files: OptionalFiles, sources: SkillVariableSources): Promise<Record<string, string>> {
  const tree = sources.configTree;
  let toml: TomlTable = {};
  const scalars: Record<string, string> = {};
  if (tree !== undefined) {
    toml = mergeLayers(await files.tomlLayers(centralConfigLayers.map((layer) => `${tree}/${layer}`)));
    const agents = toml["agents"];
    const agent = isTable(agents) ? getOwn(agents, sources.name) : undefined;
    const declared = isTable(agent) && typeof agent["module"] === "string" ? agent["module"] : undefined;
    const module = [declared, sources.folderModule, "bmm"].find((candidate) => candidate !== undefined && /^[a-z0-9][\w-]*$/i.test(candidate)) ?? "bmm";
    for (const configPath of [`${tree}/core/config.yaml`, `${tree}/${module}/config.yaml`, `${tree}/${module}/config.user.yaml`]) {
      Object.assign(scalars, scalarEntries(parseConfig(await files.read(configPath), configPath, files)));
    }
    const modules = toml["modules"];
    Object.assign(scalars, scalarEntries(toml["core"]), scalarEntries(isTable(modules) ? getOwn(modules, module) : undefined));
  }
  const variables = withSettingsAnswers({ ...variableDefaults, project_name: sources.projectName, ...scalars }, sources.settings);
  const mapped = mapOutputVariables(variables);
  // an older installer may leave `{output_folder}` inside other values
  for (const [name, value] of Object.entries(mapped)) mapped[name] = value.replace(/\{output_folder\}/g, mapped["output_folder"] ?? "{project-root}/_bmad-output");
  mapped["date"] = sources.today.toISOString().slice(0, 10);
  return mapped;
}

/** A config file's YAML, or undefined (with a note when it is not YAML). */
function parseConfig(text: string | undefined, virtualPath: string, files: OptionalFiles): unknown {
  if (text === undefined) return undefined;
  const parsed = parseBmadYaml(text);
  if (parsed.ok) return parsed.value;
  files.notes.push(`${virtualPath} skipped: not valid YAML`);
  return undefined;
}

/** The text, number and boolean entries of a mapping, as text. */
function scalarEntries(value: unknown): Record<string, string> {
  if (!isTable(value)) return {};
  const entries: Record<string, string> = {};
  for (const [key, item] of Object.entries(value)) {
    if (isForbiddenKey(key)) continue;
    if (typeof item === "string" && item.trim() !== "") entries[key] = item.trim();
    else if (typeof item === "number" || typeof item === "boolean") entries[key] = String(item);
  }
  return entries;
}
