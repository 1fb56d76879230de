import { parse as parseYaml } from "yaml";
import { AppError, type ToolContext, type ToolResult } from "@agent-orchestrator/shared";

/** A file loaded at agent start, with its virtual path. */
export interface LoadedFile {
  path: string;
  content: string;
}

export interface AgentStart {
  /** the instructions that are not file loads, with config variables substituted */
  instructions: string[];
  files: LoadedFile[];
  /** config variables from the loaded YAML files (output_folder mapped to the session folder) */
  variables: Record<string, string>;
}

export type ReadFile = (path: string) => Promise<ToolResult>;

/**
 * The phrases BMAD agents use to say "load this file now": v6 early `Load into memory X and set …`,
 * v6 compiled `Load and read X NOW`, and plain `Load X`/`Read X` where X is a path with a root variable.
 */
const loadPattern = /\b(?:load|read)\b[^{\n]*?(\{(?:bundle-root|core-root|project-root)\}[^\s"'`,;)]*)/i;

/** Finds the file a critical action asks to load, if it asks for one. */
export function fileToLoad(action: string): string | undefined {
  const match = loadPattern.exec(action);
  return match?.[1]?.replace(/[.:]+$/, "");
}

/**
 * Runs an agent's critical actions the way spec/001 §4 says, deterministically and by the system, not
 * the model: files are read through the tool-runner, YAML configs become variables, and the remaining
 * instructions get those variables substituted. A critical file that cannot be read stops the start.
 */
export async function runCriticalActions(actions: readonly string[], readFile: ReadFile, sessionFolder = "{session-folder}"): Promise<AgentStart> {
  const files: LoadedFile[] = [];
  const variables: Record<string, string> = {};
  const remaining: string[] = [];

  for (const action of actions) {
    const path = fileToLoad(action);
    if (path === undefined) {
      remaining.push(action);
      continue;
    }
    const result = await readFile(path);
    if (!result.success || typeof result["content"] !== "string") {
      const reason = result.success ? "no content" : result.error.message;
      throw new AppError("AGENT_INIT_FAILED", `The agent could not start: its critical file ${path} could not be loaded (${reason}).`);
    }
    const content = result["content"];
    files.push({ path: typeof result["path"] === "string" ? result["path"] : path, content });
    if (/\.ya?ml$/i.test(path)) Object.assign(variables, configVariables(content, path));
  }
  if ("output_folder" in variables) variables["output_folder"] = sessionFolder;

  return { instructions: remaining.map((text) => substituteVariables(text, variables)), files, variables };
}

/** The scalar top-level values of a YAML config, as strings. */
function configVariables(content: string, path: string): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = parseYaml(content, { maxAliasCount: 50 });
  } catch (error) {
    throw new AppError("AGENT_INIT_FAILED", `The agent could not start: ${path} is not valid YAML.`, { cause: error });
  }
  const variables: Record<string, string> = {};
  if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) {
    for (const [key, value] of Object.entries(parsed)) {
      if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") variables[key] = String(value);
    }
  }
  return variables;
}

/** Replaces `{name}` with a known variable; unknown names are left for the model or the tool side. */
export function substituteVariables(text: string, variables: Readonly<Record<string, string>>): string {
  return text.replace(/\{([A-Za-z_][\w-]*)\}/g, (whole, name: string) =>
    Object.prototype.hasOwnProperty.call(variables, name) ? (variables[name] as string) : whole,
  );
}

export type { ToolContext };
