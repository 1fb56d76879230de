import path from "node:path";
import type { Sandbox } from "../sandbox/sandbox.js";
import { catalogueOf } from "./file-catalogue.js";
import type { SandboxContext } from "../sandbox/sandbox-roots.js";
import { sandboxError } from "../paths/sandbox-error.js";
import { assertPatternShape, globSource, matchesNames } from "./glob-pattern.js";
import { newestFirst } from "./newest-first.js";
import { slabBytes, type PatternWorker, type ScanFile, type ScanResult } from "./pattern-worker.js";
import { searchRegex, type SearchPattern } from "./search-regex.js";
import { viewContent, type SkipReason, type ViewContent } from "./view-content.js";
import { viewFiles, type ViewFile } from "./view-files.js";

/** Bounds of one search. */
export interface SearchLimits {
  /** matching lines returned in all */
  maxHits: number;
  /** matching lines of one file */
  maxHitsPerFile: number;
  /** characters of one matching line shown, around the match */
  maxLineChars: number;
  /** files named in `skipped` */
  maxSkipped: number;
  /** after this, no further file is searched and what was found is returned */
  timeMs: number;
  /** files read ahead of the batch being gathered, and their bytes at most (one file always) */
  readAhead: number;
  readAheadBytes: number;
  /** files of one message to the worker at most (and about `slabBytes`) */
  batchFiles: number;
}

// messages in the worker at once: the worker searches while the main thread gathers the next
const batchesInWorker = 3;

export const searchLimits: SearchLimits = {
  maxHits: 200,
  maxHitsPerFile: 20,
  maxLineChars: 240,
  maxSkipped: 20,
  timeMs: 5000,
  readAhead: 32,
  readAheadBytes: 16 * 1024 * 1024,
  batchFiles: 256,
};

/** What a search found. */
export interface SearchOutcome {
  base?: string;
  /** `{project-root}/docs/prd.md:12: FR-001 …` */
  hits: string[];
  filesSearched: number;
  filesMatched: number;
  /** some matching lines are not in `hits` (a file's bound or the search's) */
  truncated: boolean;
  /** files left unsearched when the hit bound or the time bound stopped the search */
  notSearched: number;
  stoppedBy?: "hits" | "time";
  /** files not searched and why, at most `maxSkipped` */
  skipped: Array<{ path: string; reason: SkipReason }>;
  skippedCount: number;
  partial: boolean;
}

/**
 * search_files: the lines of the view's files under `path` (a folder or one file) that match a regular
 * expression or a literal text, files newest first, optionally only those a glob matches (without `/` it
 * matches file names, with `/` paths below the base). Contents are read a few files ahead (viewContent: the
 * store, or the sandbox's checked read) and matched in a pattern worker, never on the event loop; a file the
 * expression runs on too long stops the worker and fails the call with PATTERN_TIMEOUT naming that file, and
 * the next call gets a fresh worker. Bounded by hits, per file and in all, and by time.
 */
export async function searchViewFiles(
  sandbox: Sandbox,
  context: SandboxContext,
  args: { pattern: string; path?: string | undefined; glob?: string | undefined; literal?: boolean | undefined },
  limits: SearchLimits = searchLimits,
): Promise<SearchOutcome> {
  const pattern = searchRegex(args.pattern, args.literal === true);
  if (args.glob !== undefined) assertPatternShape(args.glob);
  const filter = args.glob === undefined ? undefined : { pattern: globSource(args.glob), names: matchesNames(args.glob) };
  const listing = await viewFiles(sandbox, context, args.path);
  return catalogueOf(sandbox).workers.use(async (worker) => {
    let candidates = listing.files;
    if (filter && candidates.length > 0) {
      const paths = candidates.map((file) => (filter.names ? path.posix.basename(file.relative) : file.relative));
      const { matched } = await worker.paths({ patterns: [filter.pattern], paths }, () =>
        sandboxError("PATTERN_TIMEOUT", "The glob ran too long matching file paths; simplify it (fewer * in one name)"),
      );
      candidates = matched.flatMap((index) => candidates[index] ?? []);
    }
    candidates.sort(newestFirst);
    const outcome = await scanFiles(candidates, { sandbox, context, worker, pattern, limits });
    return { ...(listing.base === undefined ? {} : { base: listing.base }), ...outcome, partial: listing.partial };
  });
}

interface ScanSetting {
  sandbox: Sandbox;
  context: SandboxContext;
  worker: PatternWorker;
  pattern: SearchPattern;
  limits: SearchLimits;
}

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** Never rejects, so a result nobody waits for any more (the search failed on an earlier file) is no unhandled rejection. */
function settled<T>(promise: Promise<T>): Promise<Settled<T>> {
  return promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}

function valueOf<T>(result: Settled<T>): T {
  if (!result.ok) throw result.error;
  return result.value;
}

/**
 * Reads files ahead (a bounded number and bytes at once) and hands them to the worker in batches of about
 * `slabBytes`, `batchesInWorker` batches in the worker at most, taking results in file order. Stops sending at the hit bound
 * or the time bound.
 */
async function scanFiles(files: readonly ViewFile[], setting: ScanSetting): Promise<Omit<SearchOutcome, "base" | "partial">> {
  const { sandbox, context, worker, pattern, limits } = setting;
  const deadline = Date.now() + limits.timeMs;
  const reads: Array<Promise<Settled<ViewContent>>> = [];
  const batches: Array<{ files: ViewFile[]; results: Promise<Settled<ScanResult[]>> }> = [];
  const outcome: Omit<SearchOutcome, "base" | "partial"> = { hits: [], filesSearched: 0, filesMatched: 0, truncated: false, notSearched: 0, skipped: [], skippedCount: 0 };
  const skip = (file: ViewFile, reason: SkipReason) => {
    outcome.skippedCount += 1;
    if (outcome.skipped.length < limits.maxSkipped) outcome.skipped.push({ path: file.path, reason });
  };
  const readAhead = (from: number) => {
    let bytes = 0;
    for (let index = from; index < files.length && index < from + limits.readAhead; index++) {
      const file = files[index] as ViewFile;
      if (index > from && bytes + file.size > limits.readAheadBytes) break;
      bytes += file.size;
      reads[index] ??= settled(viewContent(sandbox, context, file));
    }
  };
  let next = 0;
  for (;;) {
    while (next < files.length && outcome.hits.length < limits.maxHits && batches.length < batchesInWorker) {
      if (Date.now() > deadline) {
        outcome.stoppedBy = "time";
        break;
      }
      const batch: Array<{ file: ViewFile } & ScanFile> = [];
      for (let bytes = 0; next < files.length && batch.length < limits.batchFiles && bytes < slabBytes; next++) {
        readAhead(next);
        const file = files[next] as ViewFile;
        const content = valueOf(await (reads[next] as Promise<Settled<ViewContent>>));
        if ("skipped" in content) {
          skip(file, content.skipped);
          continue;
        }
        bytes += "bytes" in content ? content.bytes.byteLength : content.text.length;
        const tooLong = () =>
          sandboxError("PATTERN_TIMEOUT", `The regular expression ran too long on ${file.path}; simplify it (avoid nested quantifiers such as (a+)+) or use literal`);
        batch.push({ file, ...content, tooLong });
      }
      if (batch.length === 0) continue;
      const task = { ...pattern, maxHits: limits.maxHitsPerFile, maxChars: limits.maxLineChars, files: batch };
      batches.push({ files: batch.map((one) => one.file), results: settled(worker.scan(task)) });
    }
    const batch = batches.shift();
    if (!batch) break;
    const results = valueOf(await batch.results);
    for (const [index, result] of results.entries()) {
      const file = batch.files[index] as ViewFile;
      if (result.binary) {
        skip(file, "binary");
        continue;
      }
      outcome.filesSearched += 1;
      if (result.hits.length > 0) outcome.filesMatched += 1;
      if (result.more) outcome.truncated = true;
      for (const hit of result.hits) {
        if (outcome.hits.length === limits.maxHits) {
          outcome.truncated = true;
          break;
        }
        outcome.hits.push(`${file.path}:${hit.line}: ${hit.text}`);
      }
    }
  }
  if (next < files.length) {
    outcome.notSearched = files.length - next;
    outcome.stoppedBy ??= "hits";
    outcome.truncated = true;
  }
  return outcome;
}
