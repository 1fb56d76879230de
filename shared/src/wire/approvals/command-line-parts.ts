/**
 * The commands of one command line, for matching against approval patterns (docs/approvals.md "Command patterns").
 *
 * The split ignores quotes and backslashes on purpose: it cuts at every place a shell could start another command
 * (`;`, `&&`, `||`, `|`, `&`, a line break, `$(`, a backtick, `(`, `)`, `<(`, `>(`) and at every redirection
 * (`>`, `<`), so each piece is at most a part of one real command, and a line is allowed only when every piece is.
 * A separator inside quotes (`git commit -m "a; b"`) cuts a piece that then matches nothing and makes the line ask: a
 * cost on the safe side, where a quote-aware split that got one shell rule wrong would let a command through.
 * `2>&1` and `>&2` (copying a stream, writing no file) are kept as text.
 */

// multi-character separators first, so `&&` is not read as two `&`
const separators = ["&&", "||", "$(", "<(", ">(", ";", "|", "&", "\n", "\r", "`", "(", ")", "<", ">"] as const;
const streamCopy = /[0-9]{0,9}[<>]&(?:[0-9]+|-)(?=$|[\s;&|()<>`])/uy;

/** What a scan found: the pieces (whitespace trimmed and runs of it made one space, empty ones dropped) and whether any separator was seen. */
export interface CommandLineScan {
  parts: string[];
  separated: boolean;
}

export function scanCommandLine(line: string): CommandLineScan {
  const parts: string[] = [];
  let current = "";
  let separated = false;
  let index = 0;
  while (index < line.length) {
    streamCopy.lastIndex = index;
    const copy = streamCopy.exec(line);
    if (copy) {
      current += copy[0];
      index += copy[0].length;
      continue;
    }
    const separator = separators.find((candidate) => line.startsWith(candidate, index));
    if (separator) {
      parts.push(current);
      current = "";
      separated = true;
      index += separator.length;
      continue;
    }
    current += line[index];
    index += 1;
  }
  parts.push(current);
  return { parts: parts.map(normaliseSpace).filter((part) => part !== ""), separated };
}

/** The pieces of `line` that must each match a pattern. */
export const commandLineParts = (line: string): string[] => scanCommandLine(line).parts;

/** Trimmed, with every run of whitespace one space: `git  status` is `git status`. */
export const normaliseSpace = (text: string): string => text.replace(/\s+/gu, " ").trim();
