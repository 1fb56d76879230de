import { AppError, isCasConflict, KeyedQueue, retryNats } from "@agent-orchestrator/shared/runtime";
import { type FileAuthor, type FileRevision, type FileSpaceRef } from "@agent-orchestrator/shared/wire";
import type { KV } from "nats";
import type { ClusterCasGuard } from "./cluster-cas-guard.js";
import type { FileChange } from "./file-change.js";
import { pathClash } from "./path-clash.js";
import { encodeIndex, historyKey, indexKey, usageOf, type LoadedIndex, type RepositoryMark } from "./space-index.js";
import { quotaVerdict, type SpaceQuota } from "./space-quota.js";
import { storeFailure } from "./store-failure.js";
import { notTaken, repeatable } from "./store-retries.js";

/** Compare-and-set rounds one change may take when other writers keep winning; each round re-reads the index. */
export const maxCasRounds = 64;

/** Thrown inside a compare-and-set round when the file a `modify` read has moved on: the change is made again. */
export class FileMoved extends Error {}

/** How a batch is committed. */
export interface CommitOptions {
  /** a deletion of a missing file is FILE_NOT_FOUND rather than skipped */
  mustExist?: boolean;
  /** the revision the batch's file must still be at (0: never written): a change made from that content */
  from?: number;
}

/** What the commit of a space's index works with. */
export interface IndexCommitSettings {
  index: KV;
  revisions: KV;
  /** a space's index as it is now (the store's read, which keeps each parse) */
  read: (space: FileSpaceRef) => Promise<LoadedIndex>;
  quotas: { project: SpaceQuota; session: SpaceQuota };
  /** the largest index value the server takes (its max_payload): a space whose index would pass it is full */
  maxIndexBytes: number;
  now: () => Date;
  /** on a cluster only: every compare-and-set checked after its acknowledgement (cluster-cas-guard.ts) */
  guard?: ClusterCasGuard;
  /** told of every write once its index has moved; never awaited */
  onCommitted?: (space: FileSpaceRef, written: readonly FileRevision[], author: FileAuthor) => void;
}

const encoder = new TextEncoder();

/**
 * Moves a space's index by compare-and-set to record a batch of changes whose contents are stored already:
 * the quota of the space and each file's next revision are decided in the same step, so concurrent writers
 * never lose each other's revisions nor pass the quota together (docs/projects.md "Storage"). After the index,
 * each file's revision record goes to its history key.
 */
export class IndexCommit {
  // a space's index changes made in this process, one at a time
  private readonly queue = new KeyedQueue();

  constructor(private readonly settings: IndexCommitSettings) {}

  /**
   * Commits `changes` (each content's sha256 in `hashes`, undefined for a deletion) as one step; a deletion of a
   * missing file is skipped (or FILE_NOT_FOUND with `mustExist`). With `from`, the batch's one file must still be
   * at that revision, else FileMoved. Returns the new revisions.
   */
  run(space: FileSpaceRef, changes: readonly FileChange[], hashes: ReadonlyArray<string | undefined>, author: FileAuthor, options: CommitOptions): Promise<FileRevision[]> {
    // one compare-and-set at a time per space in this process: the writers of one replica queue instead of
    // racing each other for the index, so only other replicas' writes can make a round lose
    return this.queue.run(indexKey(space), () => this.commit(space, changes, hashes, author, options));
  }

  /**
   * Moves a project's repository mark (space-index.ts `RepositoryMark`) by compare-and-set, as a write moves its
   * files: `decide` gets the index as it is now and returns the mark to write, or undefined to leave it as it is.
   * With `at`, one round from that KV revision only (a mark learnt from what was read after it): false when the
   * index has moved since. Otherwise true once written or left.
   */
  mark(space: FileSpaceRef, decide: (current: LoadedIndex) => RepositoryMark | undefined, at?: number): Promise<boolean> {
    return this.queue.run(indexKey(space), () => this.markIndex(space, decide, at));
  }

  private async markIndex(space: FileSpaceRef, decide: (current: LoadedIndex) => RepositoryMark | undefined, at: number | undefined): Promise<boolean> {
    let overwritten: LoadedIndex | undefined;
    for (let round = 0; round < maxCasRounds; round += 1) {
      const current =
        overwritten ??
        (await this.settings.read(space).catch((error: unknown) => {
          throw storeFailure(error);
        }));
      overwritten = undefined;
      if (at !== undefined && current.kvRevision !== at) return false;
      const mark = decide(current);
      if (mark === undefined) return true;
      const value = encodeIndex(current.files, mark);
      if (value.byteLength > this.settings.maxIndexBytes) throw new AppError("QUOTA_EXCEEDED", "Project index full: it cannot list more files; delete some first");
      const stored = await this.put(space, current, value);
      if (stored === false) {
        if (at !== undefined) return false;
        continue;
      }
      // a mark acknowledged over another writer's index (cluster-cas-guard.ts) is made again on top of it
      overwritten = await this.settings.guard?.overwritten(space, current.kvRevision, stored);
      if (!overwritten) return true;
    }
    throw alwaysBusy();
  }

  /** Stores `value` as the index after `current` by compare-and-set: its KV revision, or false when another writer got there first. */
  private async put(space: FileSpaceRef, current: LoadedIndex, value: Uint8Array): Promise<number | false> {
    try {
      return await retryNats(
        () => (current.kvRevision === 0 ? this.settings.index.create(indexKey(space), value) : this.settings.index.update(indexKey(space), value, current.kvRevision)),
        notTaken,
      );
    } catch (error) {
      // not a NATS failure, so not retried above
      if (isCasConflict(error)) return false;
      throw storeFailure(error);
    }
  }

  private async commit(
    space: FileSpaceRef,
    changes: readonly FileChange[],
    hashes: ReadonlyArray<string | undefined>,
    author: FileAuthor,
    options: CommitOptions,
  ): Promise<FileRevision[]> {
    const { guard } = this.settings;
    let overwritten: LoadedIndex | undefined;
    for (let round = 0; round < maxCasRounds; round += 1) {
      // a lost round waits a little, at random, so replicas that keep colliding fall out of step
      if (round > 0 && !overwritten) await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(20, round * 2)));
      const redo = overwritten;
      const current =
        overwritten ??
        (await this.settings.read(space).catch((error: unknown) => {
          throw storeFailure(error);
        }));
      overwritten = undefined;
      const next = new Map(current.files);
      const at = this.settings.now().toISOString();
      const written: Array<{ revision: FileRevision; replaced: FileRevision | undefined }> = [];
      for (const [position, change] of changes.entries()) {
        const before = next.get(change.path);
        if (options.from !== undefined && (before?.revision ?? 0) !== options.from) {
          // the other writer's index this write was acknowledged over goes back as it was, and the change is
          // made again from that writer's content
          if (redo) await guard?.putBack(space, redo);
          throw new FileMoved();
        }
        const live = before?.deleted === true ? undefined : before;
        if (change.content === null && !live) {
          if (options.mustExist) throw new AppError("FILE_NOT_FOUND", `File not found: ${change.path}`);
          continue;
        }
        const revision: FileRevision = {
          path: change.path,
          revision: (before?.revision ?? 0) + 1,
          size: change.content === null ? 0 : change.content instanceof Uint8Array ? change.content.byteLength : change.content.size,
          sha256: hashes[position] ?? "",
          author,
          updated_at: at,
          ...(change.content === null ? { deleted: true } : change.notes),
        };
        next.set(change.path, revision);
        written.push({ revision, replaced: before });
      }
      if (written.length === 0) return [];
      const clash = pathClash(next, written.map(({ revision }) => revision));
      if (clash) throw clash;
      const what = space.kind === "project" ? "Project" : "Chat";
      const verdict = quotaVerdict(what, usageOf(current.files.values()), usageOf(next.values()), this.settings.quotas[space.kind]);
      if (verdict) throw verdict;
      const value = encodeIndex(next, current.repository);
      if (value.byteLength > this.settings.maxIndexBytes) {
        throw new AppError("QUOTA_EXCEEDED", `${what} index full: it cannot list more files; delete some first`);
      }
      const stored = await this.put(space, current, value);
      // another writer got there first: a new round from a fresh read
      if (stored === false) continue;
      if (guard) {
        overwritten = await guard.overwritten(space, current.kvRevision, stored);
        // this write replaced another writer's index: it is made again on top of that one, so both are kept
        if (overwritten) continue;
        if (!(await guard.survived(space, written.map(({ revision }) => revision)))) continue;
      }
      // recorded after the index moved: a record never names a revision that did not happen. The write has
      // happened, so it is answered as done even if its record cannot be stored (a leader election is waited
      // out first); a record lost anyway is carried by the file's next write (`replaced`), and the latest
      // revision is in the index
      await Promise.all(
        written.map(({ revision, replaced }) =>
          this.recorded(historyKey(space, revision.path), encoder.encode(JSON.stringify({ written: revision, ...(replaced ? { replaced } : {}) }))),
        ),
      );
      const revisions = written.map(({ revision }) => revision);
      this.settings.onCommitted?.(space, revisions, author);
      return revisions;
    }
    throw alwaysBusy();
  }

  /** Stores a revision record, waiting out an election; one that still cannot be stored is left to the file's next write. */
  private async recorded(key: string, record: Uint8Array): Promise<void> {
    await retryNats(() => this.settings.revisions.put(key, record), repeatable).catch(() => undefined);
  }
}

/** A change that lost every compare-and-set round it was given: other writers kept the file moving. */
export function alwaysBusy(): AppError {
  return new AppError("BUSY", "The file is being written by others all the time; try again");
}
