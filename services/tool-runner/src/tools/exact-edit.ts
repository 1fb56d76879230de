import { AppError } from "@agent-orchestrator/shared/runtime";

/** An `edit_file` change: replace `old_string` (once, or every one with `replace_all`) by `new_string`. */
export interface ExactEdit {
  old_string: string;
  new_string: string;
  replace_all?: boolean | undefined;
}

/** The edited text, how many replacements were made and the lines (1-based, in the new text) where they start. */
export interface EditOutcome {
  text: string;
  replacements: number;
  lines: number[];
}

// line numbers named in a reply or an error; more would only cost tokens
const linesShown = 10;

/**
 * Replaces an exact string, as the Edit tool of the harness BMAD is written for does (docs/file-tools.md
 * "edit_file"): the old string must occur exactly once unless every occurrence is asked for, and a refusal
 * says why in a way the model can act on (how many matches and where; where a near match differs only in
 * whitespace). A file with Windows line breaks is matched with them when the model wrote `\n`. Plain string
 * operations only, so `$&` in the new text is text, not a replacement pattern.
 */
export function applyExactEdit(text: string, edit: ExactEdit, virtualPath: string): EditOutcome {
  if (edit.old_string === edit.new_string) {
    throw new AppError("BAD_REQUEST", "old_string and new_string are the same: there is nothing to change");
  }
  let { old_string: oldText, new_string: newText } = edit;
  let starts = occurrences(text, oldText);
  if (starts.length === 0 && text.includes("\r\n") && /(?<!\r)\n/.test(oldText)) {
    oldText = withCrlf(oldText);
    newText = withCrlf(newText);
    starts = occurrences(text, oldText);
  }
  if (starts.length === 0) throw noMatch(text, edit.old_string, virtualPath);
  if (starts.length > 1 && edit.replace_all !== true) {
    const where = lineNumbers(text, starts);
    throw new AppError(
      "EDIT_NOT_UNIQUE",
      `old_string occurs ${starts.length} times in ${virtualPath} (at lines ${listed(where)}); nothing was changed. Include more of the surrounding text so that it occurs once, or set replace_all to replace every occurrence.`,
    );
  }
  const chosen = edit.replace_all === true ? starts : starts.slice(0, 1);
  const parts: string[] = [];
  const newStarts: number[] = [];
  let from = 0;
  let shift = 0;
  for (const start of chosen) {
    parts.push(text.slice(from, start), newText);
    newStarts.push(start + shift);
    shift += newText.length - oldText.length;
    from = start + oldText.length;
  }
  parts.push(text.slice(from));
  const edited = parts.join("");
  return { text: edited, replacements: chosen.length, lines: lineNumbers(edited, newStarts.slice(0, linesShown)) };
}

/** Where `needle` starts in `text`, left to right, without overlaps (as a replace-all would take them). */
function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) found.push(at);
  return found;
}

function withCrlf(value: string): string {
  return value.replace(/\r?\n/g, "\r\n");
}

/** 1-based line numbers of ascending offsets, counted in one pass. */
function lineNumbers(text: string, offsets: readonly number[]): number[] {
  const lines: number[] = [];
  let line = 1;
  let position = 0;
  for (const offset of offsets) {
    for (let next = text.indexOf("\n", position); next !== -1 && next < offset; next = text.indexOf("\n", next + 1)) {
      line += 1;
      position = next + 1;
    }
    lines.push(line);
  }
  return lines;
}

function listed(lines: readonly number[]): string {
  return lines.length > linesShown ? `${lines.slice(0, linesShown).join(", ")}, …` : lines.join(", ");
}

/**
 * The refusal of an old string that is not in the file. When the same words are there with other spacing or
 * line breaks (a model copying from memory, or from a reply that re-wrapped them), the line is named.
 */
function noMatch(text: string, oldText: string, virtualPath: string): AppError {
  const words = oldText.split(/\s+/).filter((word) => word !== "");
  let near: number | undefined;
  if (words.length > 1) {
    // escaped words joined by \s+: linear in the text, no nested quantifier to run away with
    const loose = new RegExp(words.map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("\\s+"));
    const match = loose.exec(text);
    if (match) near = lineNumbers(text, [match.index])[0];
  }
  const hint =
    near === undefined
      ? "Read the file again (read_file) and copy the exact current text, whitespace and line breaks included."
      : `Text that differs only in spacing or line breaks starts at line ${near}: read the file again and copy it exactly.`;
  return new AppError("EDIT_NO_MATCH", `old_string was not found in ${virtualPath}; nothing was changed. ${hint}`);
}
