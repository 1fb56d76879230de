import type { DiffRow } from "../files/line-diff.js";

/** One file of a unified diff: its path, its lines as the files view's diff list shows them, or `binary`. */
export interface PatchFile {
  path: string;
  rows: DiffRow[];
  added: number;
  removed: number;
  binary: boolean;
}

const hunkHeader = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/**
 * The files of a unified diff as git writes it (`git diff-tree -p`, docs/repositories.md "A chat's work"): each
 * `diff --git` section's path (the new one; the old one for a deleted file), its hunks' lines numbered in the old and
 * the new file, and the unchanged lines between two hunks as one skipped row.
 */
export function patchFiles(patch: string): PatchFile[] {
  const files: PatchFile[] = [];
  let file: PatchFile | undefined;
  let inHunk = false;
  let oldLine = 0;
  let newLine = 0;
  for (const line of patch.split("\n")) {
    if (line.startsWith("diff --git ")) {
      file = { path: gitLinePath(line.slice("diff --git ".length)), rows: [], added: 0, removed: 0, binary: false };
      files.push(file);
      inHunk = false;
      continue;
    }
    if (!file) continue;
    const hunk = hunkHeader.exec(line);
    if (hunk) {
      const oldStart = Number(hunk[1]);
      const newStart = Number(hunk[3]);
      if (inHunk && oldStart - 1 > oldLine) file.rows.push({ kind: "skipped", count: oldStart - 1 - oldLine });
      // a hunk that adds to an empty file starts at line 0
      oldLine = Math.max(0, oldStart - 1);
      newLine = Math.max(0, newStart - 1);
      inHunk = true;
      continue;
    }
    if (!inHunk) {
      // the section's header: its names, and whether git saw it as binary
      if (line.startsWith("Binary files ")) file.binary = true;
      const named = line.startsWith("+++ ") || line.startsWith("--- ") ? pathOf(line.slice(4)) : undefined;
      if (named !== undefined) file.path = named;
      continue;
    }
    if (line.startsWith("+")) {
      newLine += 1;
      file.added += 1;
      file.rows.push({ kind: "added", text: line.slice(1), newLine });
    } else if (line.startsWith("-")) {
      oldLine += 1;
      file.removed += 1;
      file.rows.push({ kind: "removed", text: line.slice(1), oldLine });
    } else if (line.startsWith(" ")) {
      oldLine += 1;
      newLine += 1;
      file.rows.push({ kind: "same", text: line.slice(1), oldLine, newLine });
    }
  }
  return files;
}

/** The new name of a `diff --git a/<old> b/<new>` line (a binary file's only one): the second, maybe quoted, name. */
function gitLinePath(names: string): string {
  const quoted = /"((?:[^"\\]|\\.)*)"$/.exec(names);
  if (quoted) return pathOf(`"${quoted[1] ?? ""}"`) ?? "";
  const at = names.lastIndexOf(" b/");
  return at === -1 ? names : names.slice(at + 3);
}

/** `a/src/x.js` or `b/src/x.js` as `src/x.js`; `/dev/null` as none; a quoted name (`"b/caf\303\251"`) unquoted. */
function pathOf(text: string): string | undefined {
  const name = text.startsWith('"') ? unquoted(text) : text;
  if (name === "/dev/null") return undefined;
  return name.replace(/^[ab]\//, "");
}

/** A C-style quoted name as git writes one (octal escapes are UTF-8 bytes). */
function unquoted(text: string): string {
  const bytes: number[] = [];
  const body = text.slice(1, text.endsWith('"') ? -1 : undefined);
  const escapes: Record<string, number> = { n: 10, t: 9, '"': 34, "\\": 92, a: 7, b: 8, f: 12, r: 13, v: 11 };
  for (let at = 0; at < body.length; at += 1) {
    const character = body[at] ?? "";
    if (character !== "\\") {
      bytes.push(...new TextEncoder().encode(character));
      continue;
    }
    const octal = /^[0-7]{3}/.exec(body.slice(at + 1));
    if (octal) {
      bytes.push(parseInt(octal[0], 8));
      at += 3;
    } else {
      bytes.push(escapes[body[at + 1] ?? ""] ?? 92);
      at += 1;
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}
