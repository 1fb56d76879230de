import { h } from "../lib/dom.js";
import { diffLinesList, diffSummary } from "../files/diff-lines-list.js";
import { lineDiff } from "../files/line-diff.js";
import { pageDiffLines } from "../files/page-diff.js";
import { callFile, type CallFile } from "./call-file.js";
import { proposedChange, type CurrentFile } from "./proposed-change.js";

/** Reads the file a call would change as it is now: undefined when it cannot be read whole. */
export type ReadCallFile = (file: CallFile) => Promise<CurrentFile | undefined>;

/**
 * What a waiting save_output or edit_file call would change, as a line diff against the file as it is now (read
 * when the card is shown); undefined for another tool. Filled in once the file is read.
 */
export function changePreview(tool: string, toolArguments: Record<string, unknown>, readFile: ReadCallFile, diffLines = pageDiffLines): HTMLElement | undefined {
  const virtualPath = typeof toolArguments["file_path"] === "string" ? toolArguments["file_path"] : undefined;
  if (virtualPath === undefined || proposedChange(tool, toolArguments, undefined) === undefined) return undefined;
  const element = h("div", { class: "approval-change", "aria-live": "polite" }, h("p", { class: "muted" }, "Reading the file to compare…"));
  const file = callFile(virtualPath);
  const reading = file ? readFile(file).catch(() => undefined) : Promise.resolve(undefined);
  void reading.then((current) => {
    const change = proposedChange(tool, toolArguments, current);
    if (!change) return element.replaceChildren();
    if (change.kind === "fails") return element.replaceChildren(h("p", { class: "approval-warning" }, change.reason));
    const diff = lineDiff(diffLines, change.before, change.after);
    element.replaceChildren(h("p", { class: "diff-summary" }, `${caption(tool, change.basis, file)} ${diffSummary(diff)}`), diff.rows.length > 0 ? diffLinesList(diff, `The change to ${virtualPath}`) : "");
  });
  return element;
}

function caption(tool: string, basis: "file" | "new-file" | "unread", file: CallFile | undefined): string {
  const name = file ? `${file.space === "session" ? "the chat's " : ""}${file.path}` : "the file";
  if (basis === "file") return `Compared with ${name} as it is now:`;
  if (basis === "new-file") return `${name} does not exist yet:`;
  return tool === "edit_file" ? `${name} could not be read; the text it replaces and its new text:` : `${name} could not be read; the whole new content:`;
}
