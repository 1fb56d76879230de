import { h } from "../lib/dom.js";
import type { DiffRow, LineDiff } from "./line-diff.js";

const markers = { same: " ", added: "+", removed: "−" } as const;
const spoken = { same: "", added: "Added: ", removed: "Removed: " } as const;

/**
 * A line diff as a list: each line with its numbers in the old and the new text and a +/− marker (read out as
 * "Added:" / "Removed:"), long unchanged stretches as one "… N unchanged lines" row. `label` names the list.
 */
export function diffLinesList(diff: LineDiff, label: string): HTMLOListElement {
  return h("ol", { class: "diff-lines", "aria-label": label }, ...diff.rows.map(diffRow));
}

/** "3 lines added, 1 removed."; "No differences." when there are none. */
export const diffSummary = (diff: LineDiff): string =>
  diff.added + diff.removed === 0 ? "No differences." : `${diff.added} line${diff.added === 1 ? "" : "s"} added, ${diff.removed} removed.`;

function diffRow(row: DiffRow): HTMLLIElement {
  if (row.kind === "skipped") return h("li", { class: "diff-skipped" }, `… ${row.count} unchanged line${row.count === 1 ? "" : "s"}`);
  return h(
    "li",
    { class: `diff-line diff-${row.kind}` },
    h("span", { class: "diff-number", "aria-hidden": "true" }, row.oldLine === undefined ? "" : String(row.oldLine)),
    h("span", { class: "diff-number", "aria-hidden": "true" }, row.newLine === undefined ? "" : String(row.newLine)),
    h("span", { class: "diff-marker", "aria-hidden": "true" }, markers[row.kind]),
    h("span", { class: "diff-text" }, spoken[row.kind] ? h("span", { class: "visually-hidden" }, spoken[row.kind]) : null, row.text),
  );
}
