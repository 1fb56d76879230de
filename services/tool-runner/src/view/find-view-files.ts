import { AppError } from "@agent-orchestrator/shared/runtime";
import type { Sandbox } from "../sandbox/sandbox.js";
import { catalogueOf } from "./file-catalogue.js";
import type { SandboxContext } from "../sandbox/sandbox-roots.js";
import { sandboxError } from "../paths/sandbox-error.js";
import { globSource, planGlob } from "./glob-pattern.js";
import { newestFirst } from "./newest-first.js";
import { viewFiles, type ViewFile, type ViewListing } from "./view-files.js";

/** What find_files found: every match, newest first. */
export interface FoundFiles {
  /** the folder searched, as a virtual path, when the call or the pattern named one */
  base?: string;
  files: ViewFile[];
  /** nothing matched with the pattern's case, and `files` match ignoring it */
  ignoredCase: boolean;
  /** the index of installed files is incomplete */
  partial: boolean;
}

/**
 * The files of the project view whose path below the base matches a glob (glob-pattern.ts), newest first, then
 * by path; none when a folder the pattern names does not exist (FILE_NOT_FOUND is for a `path` that does not). When nothing matches, the glob is tried again ignoring case (`PRD.md` for `prd.md`), and the reply
 * says so. The glob runs in a pattern worker (a glob's expression can backtrack too): one that runs too long
 * is PATTERN_TIMEOUT.
 */
export async function findViewFiles(sandbox: Sandbox, context: SandboxContext, args: { pattern: string; path?: string | undefined }): Promise<FoundFiles> {
  const plan = planGlob(args.pattern, args.path);
  const patterns = [globSource(plan.glob), globSource(plan.glob, { nocase: true })];
  const listing: ViewListing = await viewFiles(sandbox, context, plan.base).catch(async (error: unknown) => {
    // a folder the pattern names that does not exist holds no match; a `path` that does not exist is an error
    if (!AppError.is(error) || error.code !== "FILE_NOT_FOUND" || plan.base === args.path) throw error;
    if (args.path !== undefined) await viewFiles(sandbox, context, args.path);
    return { files: [], partial: false };
  });
  const found =
    listing.files.length === 0
      ? { matched: [], which: -1 }
      : await catalogueOf(sandbox).workers.use((worker) =>
          worker.paths({ patterns, paths: listing.files.map((file) => file.relative) }, () =>
            sandboxError("PATTERN_TIMEOUT", "The pattern ran too long matching file paths; simplify it (fewer * in one name)"),
          ),
        );
  const files = found.matched.flatMap((index) => listing.files[index] ?? []).sort(newestFirst);
  return { ...(listing.base === undefined ? {} : { base: listing.base }), files, ignoredCase: found.which === 1, partial: listing.partial };
}
