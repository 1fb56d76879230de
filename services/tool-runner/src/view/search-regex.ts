import { sandboxError } from "../paths/sandbox-error.js";
import type { PatternSource } from "./pattern-worker.js";

const ignoreCase = "(?i)";

/** A search pattern as a worker takes it; `literal` is the text of a case-sensitive literal, searched in bytes. */
export interface SearchPattern extends PatternSource {
  literal?: string;
}

/**
 * search_files' pattern as the regular expression a worker scans with (`gm`: the whole text at once, `^`
 * and `$` at every line): a JavaScript regular expression, or with `literal` the text itself. A leading
 * `(?i)`, the inline flag other engines know, means ignore case in both. A pattern that does not parse is
 * INVALID_PATTERN with the parser's reason; parsing never runs the expression, so it is safe on the event loop.
 */
export function searchRegex(pattern: string, literal: boolean): SearchPattern {
  const blind = pattern.startsWith(ignoreCase);
  const text = blind ? pattern.slice(ignoreCase.length) : pattern;
  if (text === "") throw sandboxError("INVALID_PATTERN", "Invalid pattern: it is empty");
  const source = literal ? text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&") : text;
  const flags = blind ? "gim" : "gm";
  try {
    new RegExp(source, flags);
  } catch (error) {
    throw sandboxError("INVALID_PATTERN", `${error instanceof Error ? error.message : String(error)}; write a JavaScript regular expression, or set literal to search for the text`);
  }
  return literal && !blind ? { source, flags, literal: text } : { source, flags };
}
