/** What a member typed as a call's new arguments: the object to send, or what is wrong with it, in words. */
export type EditedArguments = { ok: true; value: Record<string, unknown> } | { ok: false; error: string };

/**
 * The string arguments each tool that can wait for a decision needs (docs/approvals.md): checked here so a slip
 * is shown beside the box before anything is sent; the orchestrator checks the tool's whole schema again.
 */
const requiredText: Readonly<Record<string, readonly string[]>> = {
  save_output: ["file_path", "content"],
  edit_file: ["file_path", "old_string", "new_string"],
  run_script: ["command"],
  run_command: ["command"],
};

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The arguments of `tool` as a member edited them in the approval card: a JSON object, with the text arguments the
 * tool cannot run without. A key like `__proto__` stays an own key of the result (JSON.parse never sets a prototype).
 */
export function parseEditedArguments(tool: string, text: string): EditedArguments {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `Not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (!isRecord(value)) return { ok: false, error: "The arguments must be a JSON object: { … }" };
  const needed = Object.hasOwn(requiredText, tool) ? (requiredText[tool] ?? []) : [];
  const missing = needed.filter((name) => typeof (Object.hasOwn(value, name) ? value[name] : undefined) !== "string");
  if (missing.length > 0) return { ok: false, error: `${tool} needs ${missing.map((name) => `"${name}"`).join(", ")} as text` };
  if (tool === "edit_file" && value["old_string"] === "") return { ok: false, error: 'edit_file needs a non-empty "old_string"' };
  return { ok: true, value };
}

/** The arguments as the edit box starts: pretty JSON, two spaces. */
export const argumentsText = (toolArguments: Record<string, unknown>): string => JSON.stringify(toolArguments, null, 2);
