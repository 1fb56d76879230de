import { searchLimits, searchViewFiles, type SearchOutcome } from "../view/index.js";
import { jsonBytes } from "../reply-budget.js";
import type { ToolHandler } from "./tool-handler.js";

/**
 * `search_files {pattern, path?, glob?, literal?}` → `{success, pattern, path?, hits: ["{project-root}/docs/prd.md:12:
 * FR-001 …"], files_searched, files_matched, truncated, skipped?: [{path, reason}], files_skipped?, note?}`: the
 * lines of the project view's files that match, files newest first (view/search-view-files.ts). Hits are cut
 * further (and `truncated` set) when the reply would not fit the connection's max_payload.
 */
export const searchFilesTool: ToolHandler<"search_files"> = async (args, context, deps) => {
  const outcome = await searchViewFiles(deps.sandbox, context, args);
  const reply = {
    success: true as const,
    pattern: args.pattern,
    ...(outcome.base === undefined ? {} : { path: outcome.base }),
    hits: outcome.hits,
    files_searched: outcome.filesSearched,
    files_matched: outcome.filesMatched,
    truncated: outcome.truncated,
    ...(outcome.skippedCount === 0 ? {} : { skipped: outcome.skipped, files_skipped: outcome.skippedCount }),
  };
  const budget = deps.replyBudget();
  for (let cut = false; ; cut = true) {
    const answered = withNote(reply, notesOf(args.pattern, outcome, reply.truncated, cut));
    const bytes = jsonBytes(answered);
    if (bytes <= budget || reply.hits.length === 0) return answered;
    reply.hits = reply.hits.slice(0, Math.max(0, Math.floor((reply.hits.length * budget) / bytes) - 1));
    reply.truncated = true;
  }
};

/** What the model should know to search better: why it stopped, what was left out, how to narrow or widen. */
function notesOf(pattern: string, outcome: SearchOutcome, truncated: boolean, cut: boolean): string[] {
  return [
    outcome.stoppedBy === "time" ? `The search stopped at its time limit with ${outcome.notSearched} files not searched; narrow path or glob.` : undefined,
    outcome.stoppedBy === "hits" ? `The search stopped at ${outcome.hits.length} matching lines with ${outcome.notSearched} files not searched; narrow the pattern, path or glob.` : undefined,
    outcome.stoppedBy === undefined && truncated
      ? `Not every matching line is shown (at most ${searchLimits.maxHitsPerFile} per file${cut ? ", and what fits the reply" : ""}); narrow the pattern, path or glob.`
      : undefined,
    outcome.skippedCount > 0 ? `${outcome.skippedCount} files were not searched: too large to read, binary, or not readable.` : undefined,
    outcome.hits.length === 0 && !pattern.startsWith("(?i)") ? "No line matches. The pattern is case-sensitive: start it with (?i) to ignore case." : undefined,
    outcome.partial ? "The installed BMAD files are too many to index them all; some may be missing." : undefined,
  ].filter((note) => note !== undefined);
}

function withNote<T extends object>(reply: T, notes: string[]): T & { note?: string } {
  return notes.length === 0 ? reply : { ...reply, note: notes.join(" ") };
}
