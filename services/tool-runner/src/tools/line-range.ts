import { AppError } from "@agent-orchestrator/shared/runtime";

/** Lines `start_line`…`end_line` (1-based, inclusive) of a text, with their line breaks, and how many it has. */
export interface LineRange {
  content: string;
  total_lines: number;
  start_line: number;
  end_line: number;
}

/** How many lines a text has: a final line break ends the last line rather than starting another. */
export function countLines(text: string): number {
  if (text === "") return 0;
  let lines = 1;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) lines += 1;
  return text.endsWith("\n") ? lines - 1 : lines;
}

/**
 * The part of `text` that `read_file`'s `offset` and `limit` ask for (docs/file-tools.md "read_file"): from
 * line `offset` (default 1), `limit` lines (default: to the end). The lines keep their line breaks, so the
 * parts of a file read one after another join into the file. An offset past the last line is refused with
 * the file's length, so the model knows where it ends.
 */
export function lineRange(text: string, virtualPath: string, offset = 1, limit?: number): LineRange {
  const total = countLines(text);
  if (offset > Math.max(total, 1)) {
    throw new AppError("BAD_REQUEST", `offset ${offset} is past the end of ${virtualPath}: it has ${total} line${total === 1 ? "" : "s"}`);
  }
  const start = lineStart(text, offset);
  const last = limit === undefined ? total : Math.min(total, offset + limit - 1);
  const end = last >= total ? text.length : lineStart(text, last + 1);
  return { content: text.slice(start, end), total_lines: total, start_line: offset, end_line: Math.max(last, offset - 1) };
}

/** The offset where 1-based line `line` starts (the text's length past the last line). */
function lineStart(text: string, line: number): number {
  let at = 0;
  for (let current = 1; current < line; current += 1) {
    const next = text.indexOf("\n", at);
    if (next === -1) return text.length;
    at = next + 1;
  }
  return at;
}
