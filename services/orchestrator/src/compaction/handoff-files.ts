import { LoadedSkill, type ToolContext } from "@agent-orchestrator/shared/wire";
import type { ToolCaller } from "../loop/tool-caller.js";
import type { WorkflowPlace } from "./workflow-place.js";

/** A file as the hand-off gives it: where the model reads it, and what it holds on disk now. */
export interface HandoffFile {
  path: string;
  text: string;
}

/** The files of a chat's place, read again from disk now. */
export interface HandoffFiles {
  /** the workflow's own file: a skill's instructions as `load_skill` gives them, or the workflow file */
  workflow?: HandoffFile & { name?: string };
  step?: HandoffFile;
  /** the changed files whose contents were read, the newest first */
  changed: HandoffFile[];
}

/** Changed files whose contents the hand-off reads at most (their paths are all named). */
const changedContents = 3;

/**
 * Reads the place's files again through the tools, with the chat's own context (docs/security.md case 271): what
 * the chat may not read (a protected name, a path outside the project) is not read here either, and a path the
 * model wrote that does not resolve is left out. Calls are named `<callPrefix>:<n>`.
 */
export async function readHandoffFiles(
  place: WorkflowPlace,
  reader: { tools: ToolCaller; context: ToolContext; callPrefix: string },
  signal: AbortSignal,
): Promise<HandoffFiles> {
  let calls = 0;
  const readFile = async (path: string): Promise<HandoffFile | undefined> => {
    const result = await reader.tools.call("read_file", `${reader.callPrefix}:${++calls}`, reader.context, { file_path: path }, signal);
    return result.success && typeof result["content"] === "string" ? { path, text: result["content"] } : undefined;
  };
  const files: HandoffFiles = { changed: [] };
  const { workflow } = place;
  if (workflow?.kind === "skill") {
    const result = await reader.tools.call("load_skill", `${reader.callPrefix}:${++calls}`, reader.context, { name: workflow.name }, signal);
    const skill = LoadedSkill.safeParse(result);
    if (skill.success) files.workflow = { name: skill.data.name, path: `${skill.data.path}/SKILL.md`, text: skill.data.instructions };
  } else if (workflow?.kind === "file") {
    const file = await readFile(workflow.path);
    if (file) files.workflow = file;
  }
  if (place.step) files.step = await readFile(place.step);
  for (const path of place.changed.slice(-changedContents).reverse()) {
    const file = await readFile(path);
    if (file) files.changed.push(file);
  }
  return files;
}
