import { isOutputVariable, mapOutputVariables } from "@agent-orchestrator/shared/bmad";
import { getOwn } from "@agent-orchestrator/shared/wire";

/** Root variables stay as they are: the model sees virtual paths (docs/design.md "Virtual paths"). */
const fixedValues: Readonly<Record<string, string>> = {
  "project-root": "{project-root}",
  project_root: "{project-root}",
  "bundle-root": "{bundle-root}",
  "core-root": "{core-root}",
  "session-folder": "{session-folder}",
};

// `{config_source}:name`, or `{name}` but not the template placeholders `{{name}}`, which the model fills in
const maxValueLength = 16 * 1024;
const reference = /\{config_source\}:([A-Za-z0-9_-]+)|(?<!\{)\{([A-Za-z0-9_-]+)\}(?!\})/g;

/** Where a workflow's variables come from. */
export interface WorkflowVariableSources {
  /** the workflow.yaml's top-level entries */
  workflow: Readonly<Record<string, unknown>>;
  /** the entries of the file `config_source` names, when it could be read */
  config: Readonly<Record<string, unknown>> | undefined;
  today: Date;
}

/**
 * Resolves a workflow's variables the way BMAD's engine does (workflow.xml step 1a): `{config_source}:name`
 * from the config, system values (`date: system-generated`), and `{name}` from the workflow's own entries
 * or, failing that, the config's.
 * Values that refer to other values (`{installed_path}/…`, a config value naming `{project-root}`) are
 * resolved in turn, to any depth; a cycle, or an unknown name, is left as written. Returns a function that
 * resolves any text the same way.
 */
export function createVariableResolver(sources: WorkflowVariableSources): (text: string) => string {
  const isoDate = sources.today.toISOString().slice(0, 10);
  // BMAD's output variables name the project's own folders, as for every other tool (docs/design.md "Variables"):
  // the config's `output_folder: "{project-root}/docs"` is `{project-root}/docs`, never a chat's scratch space
  const outputValues = mapOutputVariables({ output_folder: "", ...textValues(sources.config) });
  const systemValues: Readonly<Record<string, string>> = {
    date: isoDate,
    current_date: isoDate,
    current_year: isoDate.slice(0, 4),
    current_month: isoDate.slice(5, 7),
  };

  // each value is expanded once (a value used twice at every level would cost 2^depth otherwise)
  const expanded = new Map<string, string | undefined>();
  // `key` names what is being expanded, so an expansion that leads back to itself stops there
  const expand = (key: string, raw: unknown, resolving: Set<string>): string | undefined => {
    if (typeof raw !== "string" && typeof raw !== "number" && typeof raw !== "boolean") return undefined;
    if (expanded.has(key)) return expanded.get(key);
    if (resolving.has(key)) return undefined;
    resolving.add(key);
    const value = resolve(String(raw), resolving);
    resolving.delete(key);
    expanded.set(key, value);
    return value;
  };

  const variable = (name: string, resolving: Set<string>): string | undefined => {
    const fixed = getOwn(fixedValues, name);
    if (fixed !== undefined) return fixed;
    if (name === "output_folder") return outputValues["output_folder"];
    const raw = getOwn(sources.workflow, name);
    if (raw === "system-generated" || (raw === undefined && name === "date")) return getOwn(systemValues, name);
    // the config's values are variables too, as when the engine loads config_source
    if (raw === undefined) return configValue(name, resolving);
    return expand(name, raw, resolving);
  };

  const configValue = (name: string, resolving: Set<string>): string | undefined => {
    if (isOutputVariable(name) && getOwn(outputValues, name) !== undefined) return getOwn(outputValues, name);
    return sources.config && expand(`{config_source}:${name}`, getOwn(sources.config, name), resolving);
  };

  const resolve = (text: string, resolving: Set<string>): string => {
    // what one text may grow by, however many references it holds
    let growth = maxValueLength;
    return text.replace(reference, (whole, configName: string | undefined, name: string | undefined) => {
      const value = configName !== undefined ? configValue(configName, resolving) : variable(name ?? "", resolving);
      if (value === undefined || value.length > growth) return whole;
      growth -= value.length;
      return value;
    });
  };

  return (text) => resolve(text, new Set());
}

/** The config's text values (a config file may hold anything). */
function textValues(config: Readonly<Record<string, unknown>> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(config ?? {}).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
}

/** Applies `resolveText` to every string inside a YAML value (mappings and sequences included). */
export function resolveDeep(value: unknown, resolveText: (text: string) => string): unknown {
  if (typeof value === "string") return resolveText(value);
  if (Array.isArray(value)) return value.map((item) => resolveDeep(item, resolveText));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, resolveDeep(inner, resolveText)]));
  }
  return value;
}
