import { asMapping, fileToLoad, parseBmadYaml } from "@agent-orchestrator/shared/bmad";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { getOwn, type ToolResult } from "@agent-orchestrator/shared/wire";
import { startVariables } from "./start-variables.js";

/** A file loaded at agent start, with its virtual path. */
export interface LoadedFile {
  path: string;
  content: string;
}

/** What the system did for an agent whose start is a list of critical actions (every format but skills). */
export interface ActionsStart {
  kind: "actions";
  /** the instructions that are not file loads, with config variables substituted */
  instructions: string[];
  files: LoadedFile[];
  /** config variables from the loaded YAML files, output variables resolved inside the project, defaults filled in */
  variables: Record<string, string>;
  /** what the start read before anything was resolved: the settings of a chat are merged over it (start-settings.ts) */
  unresolved?: { instructions: string[]; variables: Record<string, string> };
}

export type ReadFile = (path: string) => Promise<ToolResult>;

/**
 * Runs an agent's critical actions as docs/design.md "Activation by the system" says, deterministically and by the system, not
 * the model: files are read through the tool-runner, YAML configs become variables, and the remaining
 * instructions get those variables substituted. A critical file that cannot be read stops the start.
 */
export async function runCriticalActions(actions: readonly string[], readFile: ReadFile): Promise<ActionsStart> {
  const files: LoadedFile[] = [];
  const loaded: Record<string, string> = {};
  const remaining: string[] = [];
  const requested = new Set<string>();

  for (const action of actions) {
    const path = fileToLoad(action);
    // a later action naming a file already loaded is a rule about it (4.x "Exception: Read core-config.yaml"), kept as text
    if (path === undefined || requested.has(path)) {
      remaining.push(action);
      continue;
    }
    requested.add(path);
    const result = await readFile(path);
    if (!result.success || typeof result["content"] !== "string") {
      const reason = result.success ? "no content" : result.error.message;
      throw new AppError("AGENT_INIT_FAILED", `The agent could not start: its critical file ${path} could not be loaded (${reason}).`);
    }
    const content = result["content"];
    files.push({ path: typeof result["path"] === "string" ? result["path"] : path, content });
    if (/\.ya?ml$/i.test(path)) Object.assign(loaded, configVariables(content, path));
  }
  const variables = startVariables(loaded);
  return {
    kind: "actions",
    instructions: remaining.map((text) => substituteVariables(text, variables)),
    files,
    variables,
    unresolved: { instructions: remaining, variables: loaded },
  };
}

/** The scalar top-level values of a YAML config, as strings (4.x core-config.yaml nests the rest; it stays in the loaded file). */
function configVariables(content: string, path: string): Record<string, string> {
  const parsed = parseBmadYaml(content);
  if (!parsed.ok) throw new AppError("AGENT_INIT_FAILED", `The agent could not start: ${path} is not valid YAML (${parsed.error}).`);
  const variables: Record<string, string> = {};
  const mapping = asMapping(parsed.value);
  if (mapping) {
    for (const [key, value] of Object.entries(mapping)) {
      if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") variables[key] = String(value);
    }
  }
  return variables;
}

/** Replaces `{name}` with a known variable; unknown names are left for the model or the tool side. */
export function substituteVariables(text: string, variables: Readonly<Record<string, string>>): string {
  return text.replace(/\{([A-Za-z_][\w-]*)\}/g, (whole, name: string) => getOwn(variables, name) ?? whole);
}

