/** The file a call would change, as the page read it just now: its text, or that it does not exist. */
export type CurrentFile = { exists: true; text: string } | { exists: false };

/**
 * What a waiting save_output or edit_file call would do to its file (docs/approvals.md "On the web page"): the text
 * before and after, compared with the file as it is now (`basis: "file"`), with no file (`"new-file"`), or, when the
 * file could not be read (`"unread"`), the edit's own old and new text; or why the call would fail as it stands.
 */
export type ProposedChange = { kind: "diff"; before: string; after: string; basis: "file" | "new-file" | "unread" } | { kind: "fails"; reason: string };

const text = (toolArguments: Record<string, unknown>, name: string): string | undefined => {
  const value = Object.hasOwn(toolArguments, name) ? toolArguments[name] : undefined;
  return typeof value === "string" ? value : undefined;
};

const occurrences = (haystack: string, needle: string): number => haystack.split(needle).length - 1;

/** The change of a save_output or edit_file call; undefined for another tool or arguments without the texts it needs. */
export function proposedChange(tool: string, toolArguments: Record<string, unknown>, current: CurrentFile | undefined): ProposedChange | undefined {
  if (tool === "save_output") {
    const content = text(toolArguments, "content");
    if (content === undefined) return undefined;
    const before = current?.exists ? current.text : "";
    const after = text(toolArguments, "mode") === "append" ? before + content : content;
    return { kind: "diff", before, after, basis: current === undefined ? "unread" : current.exists ? "file" : "new-file" };
  }
  if (tool !== "edit_file") return undefined;
  const oldString = text(toolArguments, "old_string");
  const newString = text(toolArguments, "new_string");
  if (oldString === undefined || newString === undefined || oldString === "") return undefined;
  if (current === undefined) return { kind: "diff", before: oldString, after: newString, basis: "unread" };
  if (!current.exists) return { kind: "fails", reason: "The file does not exist: the edit would fail." };
  const found = occurrences(current.text, oldString);
  if (found === 0) return { kind: "fails", reason: "The text to replace is not in the file as it is now: the edit would fail." };
  const replaceAll = toolArguments["replace_all"] === true;
  if (found > 1 && !replaceAll) return { kind: "fails", reason: `The text to replace occurs ${found} times in the file: the edit would fail.` };
  // split and join: no `$&` patterns, which String.replace would read in new_string
  const after = replaceAll ? current.text.split(oldString).join(newString) : current.text.replace(oldString, () => newString);
  return { kind: "diff", before: current.text, after, basis: "file" };
}
