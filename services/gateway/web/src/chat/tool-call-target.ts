/**
 * Argument names that say what a tool works on, in the order they are looked for: a virtual path, a skill's
 * name (load_skill), a script's command line (run_script), a subagent's skill, or a search's pattern.
 */
const pathArguments = ["file_path", "path", "workflow_path", "name", "command", "skill", "pattern"] as const;

/** The tools whose success leaves a file changed: save_output (whole or appended) and edit_file. */
export function writesFile(toolName: string): boolean {
  return toolName === "save_output" || toolName === "edit_file";
}

/** What a tool call names (`{session-folder}/brief.md`, `bmad-prd`), to show before the tool has answered. */
export function toolCallTarget(toolArguments: Record<string, unknown>): string | undefined {
  for (const name of pathArguments) {
    const value = Object.hasOwn(toolArguments, name) ? toolArguments[name] : undefined;
    if (typeof value === "string" && value !== "") return value;
  }
  return undefined;
}

/** The path of a session file relative to its folder (`brief.md`), as the files route wants it; undefined outside the folder. */
export function sessionRelativePath(virtualPath: string): string | undefined {
  const prefix = "{session-folder}/";
  return virtualPath.startsWith(prefix) && virtualPath.length > prefix.length ? virtualPath.slice(prefix.length) : undefined;
}
