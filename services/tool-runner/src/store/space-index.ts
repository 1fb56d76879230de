import { createHash } from "node:crypto";
import { FileRevision, type FileSpaceRef } from "@agent-orchestrator/shared/wire";
import { z } from "zod";
import type { SpaceUsage } from "./space-quota.js";
import { storedJson } from "./stored-json.js";

/**
 * Whether a project has a git repository, as its index says (docs/repositories.md "The index's mark"): the generation of
 * the repository an attach marked it with before its record could be seen, or null (none). A marked index whose
 * repository is gone (a detach that stopped before unmarking, an attach that lost) only costs the repositories'
 * bucket's answer, as before the mark; null is written only while no record can appear unmarked.
 */
export const RepositoryMark = z.string().min(1).nullable();
export type RepositoryMark = z.infer<typeof RepositoryMark>;

/**
 * The file index of one space (a project, or a chat's scratch space), one KV value under `idx.<p|s>.<id>`
 * moved only by compare-and-set (docs/projects.md "Storage"): the latest revision of every path, deleted
 * ones included (their revision numbers go on), so the quota and the file's next revision are decided in the
 * same compare-and-set that records a write; and a project's repository mark. Files are an array, not an object
 * keyed by path, so no path (`__proto__`) is ever a property name.
 */
export const SpaceIndex = z.object({ files: z.array(FileRevision), repository: RepositoryMark.optional() });
export type SpaceIndex = z.infer<typeof SpaceIndex>;

/**
 * The index as read: its files by path, its repository mark (undefined: not known, as in an index an older
 * tool-runner wrote, or none yet), and the KV revision a compare-and-set must name (0: no index yet).
 * Read-only: the store keeps one parse per KV revision and hands the same map to every caller.
 */
export interface LoadedIndex {
  readonly files: ReadonlyMap<string, FileRevision>;
  readonly repository?: RepositoryMark;
  readonly kvRevision: number;
}

/** The KV value of an index holding `files` and the repository mark `repository` (left out when not known). */
export function encodeIndex(files: ReadonlyMap<string, FileRevision>, repository: RepositoryMark | undefined): Uint8Array {
  return new TextEncoder().encode(JSON.stringify({ files: [...files.values()], ...(repository === undefined ? {} : { repository }) } satisfies SpaceIndex));
}

/** An index value as read at KV revision `kvRevision`, or undefined when the text is none (missing, or not an index). */
export function decodeIndex(text: string | undefined, kvRevision: number): LoadedIndex | undefined {
  const parsed = SpaceIndex.safeParse(text === undefined ? undefined : storedJson(text));
  return parsed.success ? loadedIndex(parsed.data, kvRevision) : undefined;
}

/** A parsed index value as the store hands it out. */
export function loadedIndex(value: SpaceIndex, kvRevision: number): LoadedIndex {
  const files = new Map(value.files.map((file) => [file.path, file]));
  return value.repository === undefined ? { files, kvRevision } : { files, repository: value.repository, kvRevision };
}

export function indexKey(space: FileSpaceRef): string {
  return `idx.${spaceToken(space)}`;
}

/**
 * The key whose KV history keeps a file's revisions: each value holds the revision written and the one it
 * replaced, so a revision whose record was lost (its writer died between the index and this put) is
 * recorded by the next write of the file. Paths are hashed: KV keys allow few characters.
 */
export function historyKey(space: FileSpaceRef, path: string): string {
  return `${historyPrefix(space)}.${createHash("sha256").update(path).digest("hex").slice(0, 40)}`;
}

export function historyPrefix(space: FileSpaceRef): string {
  return `rev.${spaceToken(space)}`;
}

/** One history value: the revision written, and the one it replaced (if any). */
export const HistoryRecord = z.object({ written: FileRevision, replaced: FileRevision.optional() });
export type HistoryRecord = z.infer<typeof HistoryRecord>;

/** Live files only (deletions are revisions, not files). */
export function liveFiles(index: LoadedIndex): FileRevision[] {
  return [...index.files.values()].filter((file) => file.deleted !== true);
}

export function usageOf(files: Iterable<FileRevision>): SpaceUsage {
  let bytes = 0;
  let count = 0;
  for (const file of files) {
    if (file.deleted === true) continue;
    bytes += file.size;
    count += 1;
  }
  return { bytes, files: count };
}

function spaceToken(space: FileSpaceRef): string {
  return `${space.kind === "project" ? "p" : "s"}.${space.id}`;
}
