/** The tools whose subject is a command line rather than a file. */
export const commandTools: ReadonlySet<string> = new Set(["run_command", "run_script"]);

/** What a waiting call is about, in one line: the command line it runs, or the file it writes; undefined when it names neither. */
export function callSubject(tool: string, toolArguments: Record<string, unknown>): string | undefined {
  const name = commandTools.has(tool) ? "command" : "file_path";
  const value = Object.hasOwn(toolArguments, name) ? toolArguments[name] : undefined;
  return typeof value === "string" && value !== "" ? value : undefined;
}
