import { AppError } from "@agent-orchestrator/shared/runtime";
import { parse, type ParseEntry } from "shell-quote";

/** Longest command line accepted; BMAD's longest script lines are a few hundred characters. */
export const maxCommandLength = 16 * 1024;
/** Most words accepted in one command line. */
export const maxCommandWords = 256;

/**
 * Splits a command line the model wrote into words the way `sh` would quote them, and refuses everything a
 * shell would do besides quoting: operators (`;`, `|`, `&`, `&&`, `>`, `<`, `(`), globs, comments, `$`
 * expansion and substitution, backticks and unquoted newlines. Nothing is ever given to a shell; the refusal
 * is there because a command that needs one is not a plain script call, and running it word by word would
 * do something else than the model meant.
 */
export function splitCommandLine(command: string): string[] {
  if (command.length > maxCommandLength) throw rejected(`the command is longer than ${maxCommandLength} characters`);
  if (/[\0-\x08\x0b-\x1f\x7f]/.test(command)) throw rejected("the command contains control characters");
  const words: string[] = [];
  // `$NAME` comes back from shell-quote as an object naming the variable, so no expansion is ever made
  for (const entry of parse(scanQuoting(command), (name) => ({ op: `$${name}` }) as unknown as string)) {
    words.push(plainWord(entry));
  }
  if (words.length === 0) throw rejected("the command is empty");
  if (words.length > maxCommandWords) throw rejected(`the command has more than ${maxCommandWords} words`);
  return words;
}

function plainWord(entry: ParseEntry): string {
  if (typeof entry === "string") return entry;
  if ("comment" in entry) throw rejected("`#` starts a shell comment; quote it if it is part of an argument");
  if (entry.op === "glob") throw rejected(`\`${entry.pattern}\` is a file pattern; give the file names, or quote it`);
  // our expansion callback's marker: `$NAME`, or a bare `$` for `$(…)` and `${…}`
  const op: string = entry.op;
  if (op.startsWith("$")) {
    throw rejected(`\`${op === "$" ? "$(…)" : op}\` is shell expansion; write the value itself (use '…' quotes for a literal $)`);
  }
  throw rejected(`\`${entry.op}\` is shell syntax (chaining, pipes, redirection and subshells are not run); run one script per call`);
}

/**
 * The checks shell-quote does not make, by walking the quoting the way `sh` does: it reads an unquoted
 * newline as a blank and a backtick as a plain character, where `sh` starts a new command and a command
 * substitution. A backslash-newline outside single quotes is a line continuation in `sh`, as in BMAD's
 * multi-line script lines, and becomes a blank.
 */
function scanQuoting(command: string): string {
  let quote: "'" | '"' | undefined;
  let out = "";
  for (let index = 0; index < command.length; index++) {
    const char = command[index] ?? "";
    if (quote === "'") {
      if (char === "'") quote = undefined;
      out += char;
      continue;
    }
    if (char === "\\") {
      const next = command[index + 1];
      if (next === "\n") {
        out += quote === undefined ? " " : "";
        index++;
        continue;
      }
      out += char + (next ?? "");
      index++;
      continue;
    }
    if (char === "`") throw rejected("backticks are command substitution; write the value itself (use '…' quotes for a literal backtick)");
    if (char === "\n" && quote === undefined) throw rejected("a line break separates commands; run one script per call");
    if (char === '"') quote = quote === '"' ? undefined : '"';
    else if (char === "'" && quote === undefined) quote = "'";
    out += char;
  }
  if (quote !== undefined) throw rejected(`a ${quote === "'" ? "single" : "double"} quote is not closed`);
  return out;
}

/** SCRIPT_REJECTED with a reason the model can act on. */
export function rejected(reason: string, detail?: Record<string, unknown>): AppError {
  return new AppError("SCRIPT_REJECTED", `Script refused: ${reason}`, detail === undefined ? {} : { detail });
}
