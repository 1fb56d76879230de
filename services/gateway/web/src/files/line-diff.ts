import type { ChangeObject } from "diff";

/** jsdiff's `diffLines`: the page passes the browser build's, tests the Node package's (see `page-diff.ts`). */
export type DiffLines = (oldText: string, newText: string) => Array<ChangeObject<string>>;

/** One line of a diff as the page shows it, with its numbers in the old and the new text; or a run of unchanged lines left out. */
export type DiffRow = { kind: "same" | "added" | "removed"; text: string; oldLine?: number; newLine?: number } | { kind: "skipped"; count: number };

export interface LineDiff {
  rows: DiffRow[];
  added: number;
  removed: number;
}

const linesOf = (value: string): string[] => {
  const lines = value.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines.map((line) => line.replace(/\r$/, ""));
};

/**
 * The line diff between two revisions' texts, unchanged stretches longer than twice `context` shown only
 * by their first and last `context` lines around a "skipped" row, as `diff -u` does.
 */
export function lineDiff(diffLines: DiffLines, oldText: string, newText: string, context = 3): LineDiff {
  const all: Array<Extract<DiffRow, { text: string }>> = [];
  let oldLine = 1;
  let newLine = 1;
  let added = 0;
  let removed = 0;
  for (const change of diffLines(oldText, newText)) {
    for (const text of linesOf(change.value)) {
      if (change.added) {
        all.push({ kind: "added", text, newLine: newLine++ });
        added++;
      } else if (change.removed) {
        all.push({ kind: "removed", text, oldLine: oldLine++ });
        removed++;
      } else all.push({ kind: "same", text, oldLine: oldLine++, newLine: newLine++ });
    }
  }
  return { rows: collapseUnchanged(all, context), added, removed };
}

function collapseUnchanged(all: Array<Extract<DiffRow, { text: string }>>, context: number): DiffRow[] {
  const rows: DiffRow[] = [];
  let start = 0;
  while (start < all.length) {
    if (all[start]?.kind !== "same") {
      rows.push(all[start++] as DiffRow);
      continue;
    }
    let end = start;
    while (end < all.length && all[end]?.kind === "same") end++;
    // keep `context` lines next to a change; none before the first change or after the last
    const keepBefore = start === 0 ? 0 : context;
    const keepAfter = end === all.length ? 0 : context;
    if (end - start > keepBefore + keepAfter + 1) {
      rows.push(...all.slice(start, start + keepBefore), { kind: "skipped", count: end - start - keepBefore - keepAfter }, ...all.slice(end - keepAfter, end));
    } else rows.push(...all.slice(start, end));
    start = end;
  }
  return rows;
}
