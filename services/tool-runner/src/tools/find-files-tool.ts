import { findViewFiles, widerGlob, type FoundFiles } from "../view/index.js";
import { jsonBytes } from "../reply-budget.js";
import type { ToolHandler } from "./tool-handler.js";

/** Files find_files lists at most; the reply says how many matched in all. */
export const findFilesMax = 200;

/**
 * `find_files {pattern, path?}` → `{success, pattern, path?, files: [{path, size, modified}], total, truncated,
 * note?}`: the files of the project view (the project's own, the installed BMAD files the agent may read, the
 * chat's scratch files) whose path matches a glob, newest first, answered from the file indexes (docs/file-tools.md "find_files").
 * At most `findFilesMax` files and what fits the reply; a note says how to narrow, or, when nothing matched,
 * how to widen.
 */
export const findFilesTool: ToolHandler<"find_files"> = async (args, context, deps) => {
  const found = await findViewFiles(deps.sandbox, context, args);
  const total = found.files.length;
  const reply = {
    success: true as const,
    pattern: args.pattern,
    ...(found.base === undefined ? {} : { path: found.base }),
    files: found.files.slice(0, findFilesMax).map((file) => ({ path: file.path, size: file.size, modified: new Date(file.mtimeMs).toISOString() })),
    total,
    truncated: total > findFilesMax,
  };
  const budget = deps.replyBudget();
  for (;;) {
    const answered = withNote(reply, notesOf(args.pattern, found, reply.files.length, reply.truncated));
    const bytes = jsonBytes(answered);
    if (bytes <= budget || reply.files.length === 0) return answered;
    reply.files = reply.files.slice(0, Math.max(0, Math.floor((reply.files.length * budget) / bytes) - 1));
    reply.truncated = true;
  }
};

/** How to narrow a long list or widen an empty one, and what the list may lack. */
function notesOf(pattern: string, found: FoundFiles, listed: number, truncated: boolean): string[] {
  const total = found.files.length;
  return [
    total === 0 ? widenNote(pattern) : undefined,
    found.ignoredCase ? "Nothing matched with the pattern's case; these files match ignoring case." : undefined,
    truncated ? `${total} files match; the ${listed} newest are listed. Narrow the pattern or path to see the others.` : undefined,
    found.partial ? "The installed BMAD files are too many to index them all; some may be missing." : undefined,
  ].filter((note) => note !== undefined);
}

function withNote<T extends object>(reply: T, notes: string[]): T & { note?: string } {
  return notes.length === 0 ? reply : { ...reply, note: notes.join(" ") };
}

/** How to find more: a pattern matches the whole path below its folder, so a bare name matches only there. */
function widenNote(pattern: string): string {
  const wider = widerGlob(pattern);
  if (wider === undefined) return "No file matches. Try a wider pattern (fewer literal names) or another path.";
  return `No file matches. A pattern matches the whole path below its folder: try ${wider} to match at any depth.`;
}
