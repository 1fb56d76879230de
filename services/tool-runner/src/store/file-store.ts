import { AppError, retryNats } from "@agent-orchestrator/shared/runtime";
import { jetStreamNames, type FileAuthor, type FileRevision, type FileSpaceRef } from "@agent-orchestrator/shared/wire";
import { LRUCache } from "lru-cache";
import type { JetStreamClient, KV, NatsConnection, ObjectStore } from "nats";
import type { ToolRunnerConfig } from "../config.js";
import { replyOverheadBytes } from "../reply-budget.js";
import { ClusterCasGuard, indexHistory } from "./cluster-cas-guard.js";
import { ContentCache } from "./content-cache.js";
import type { FileChange, StoredContent } from "./file-change.js";
import { FileContents } from "./file-contents.js";
import { alwaysBusy, FileMoved, IndexCommit, maxCasRounds, type CommitOptions, type IndexCommitSettings } from "./index-commit.js";
import { HistoryRecord, SpaceIndex, historyKey, historyPrefix, indexKey, loadedIndex, usageOf, type LoadedIndex, type RepositoryMark } from "./space-index.js";
import { SourceSnapshots } from "./source-snapshots.js";
import type { SpaceQuota } from "./space-quota.js";
import { storedJson } from "./stored-json.js";
import { repeatable } from "./store-retries.js";

/** The latest revision of a file and its content, as a `modify` change is given it. */
export interface CurrentFile {
  file: FileRevision;
  content: Uint8Array;
}

/** The settings of the store in a tool-runner's configuration. */
export type FileStoreConfig = Pick<
  ToolRunnerConfig,
  "JS_REPLICAS" | "FILE_CACHE_MB" | "PROJECT_MAX_BYTES" | "PROJECT_MAX_FILES" | "SESSION_MAX_BYTES" | "SESSION_MAX_FILES"
>;

/** Where the store lives and what it allows. */
export interface FileStoreOptions {
  /** flushes the connection the contents store is on: a large content is sent in windows (putObjectPaced) */
  flush: () => Promise<void>;
  index: KV;
  revisions: KV;
  contents: ObjectStore;
  cache: ContentCache;
  quotas: { project: SpaceQuota; session: SpaceQuota };
  /** the largest index value the server takes (its max_payload): a space whose index would pass it is full */
  maxIndexBytes: number;
  /** on a cluster (JS_REPLICAS above 1) only: the check of every index compare-and-set (cluster-cas-guard.ts) */
  guard?: ClusterCasGuard;
  now?: () => Date;
  /** told of every write once its index has moved (the audit log's `file_written`, tool-runner-service.ts); never awaited */
  onCommitted?: IndexCommitSettings["onCommitted"];
}

const encoder = new TextEncoder();

/**
 * The files of projects and chats, every byte in JetStream (docs/projects.md "Storage"). Contents are
 * objects named by their sha256 in an Object Store (file-contents.ts); each space's index is one KV value moved
 * by compare-and-set, which decides the quota and the file's next revision together (index-commit.ts); each
 * file's revisions are the KV history of a key of its own. A write stores the content first and moves the index
 * second, so a reader never sees an index entry without its content.
 */
export class FileStore {
  // the last index parsed per space, for the spaces in use (callers never change a loaded index's map)
  private readonly parsedIndexes = new LRUCache<string, LoadedIndex>({ max: 256 });
  private readonly contents: FileContents;
  private readonly commits: IndexCommit;

  /** each project's read-only code snapshot, kept beside the spaces' indexes */
  readonly sources: SourceSnapshots;

  constructor(private readonly options: FileStoreOptions) {
    this.contents = new FileContents(options.contents, options.cache, options.flush);
    this.commits = new IndexCommit({
      index: options.index,
      revisions: options.revisions,
      read: (space) => this.index(space),
      quotas: options.quotas,
      maxIndexBytes: options.maxIndexBytes,
      now: options.now ?? (() => new Date()),
      ...(options.guard ? { guard: options.guard } : {}),
      ...(options.onCommitted ? { onCommitted: options.onCommitted } : {}),
    });
    this.sources = new SourceSnapshots(options.index, this);
  }

  /** Opens (and creates where missing) the buckets of `subjectPrefix`'s set with `replicas` copies. */
  static async open(
    js: JetStreamClient,
    settings: {
      flush: () => Promise<void>;
      subjectPrefix: string;
      replicas: number;
      cacheBytes: number;
      quotas: FileStoreOptions["quotas"];
      maxIndexBytes: number;
      onCommitted?: FileStoreOptions["onCommitted"];
    },
  ): Promise<FileStore> {
    const names = jetStreamNames(settings.subjectPrefix);
    const replicas = settings.replicas;
    const [index, revisions, contents] = await Promise.all([
      js.views.kv(names.fileIndexBucket, { history: indexHistory, replicas }),
      js.views.kv(names.fileRevisionsBucket, { history: 64, replicas }),
      js.views.os(names.fileContentsStore, { replicas }),
    ]);
    const guard = replicas > 1 ? await ClusterCasGuard.open(js, index, names.fileIndexBucket) : undefined;
    return new FileStore({
      flush: settings.flush,
      index,
      revisions,
      contents,
      cache: new ContentCache(settings.cacheBytes),
      quotas: settings.quotas,
      maxIndexBytes: settings.maxIndexBytes,
      ...(settings.onCommitted ? { onCommitted: settings.onCommitted } : {}),
      ...(guard ? { guard } : {}),
    });
  }

  /** The store a tool-runner with `config` uses, on `connection`'s JetStream, its bucket names led by `subjectPrefix`. */
  static forConfig(connection: NatsConnection, subjectPrefix: string, config: FileStoreConfig, onCommitted?: FileStoreOptions["onCommitted"]): Promise<FileStore> {
    const maxPayload = connection.info?.max_payload ?? 1024 * 1024;
    return FileStore.open(connection.jetstream(), {
      flush: () => connection.flush(),
      subjectPrefix,
      replicas: config.JS_REPLICAS,
      cacheBytes: config.FILE_CACHE_MB * 1024 * 1024,
      quotas: {
        project: { maxBytes: config.PROJECT_MAX_BYTES, maxFiles: config.PROJECT_MAX_FILES },
        session: { maxBytes: config.SESSION_MAX_BYTES, maxFiles: config.SESSION_MAX_FILES },
      },
      // the index travels as one message, with room for its framing
      maxIndexBytes: maxPayload - replyOverheadBytes,
      ...(onCommitted ? { onCommitted } : {}),
    });
  }

  /** A space's index as it is now; a read made during an election waits for its end. */
  async index(space: FileSpaceRef): Promise<LoadedIndex> {
    const key = indexKey(space);
    const entry = await retryNats(() => this.options.index.get(key), repeatable);
    if (!entry || entry.operation !== "PUT") return { files: new Map(), kvRevision: entry?.revision ?? 0 };
    // a KV revision names one value for good: its parse is kept, as a large project's index takes
    // milliseconds to parse and check, and every tool call reads it
    const known = this.parsedIndexes.get(key);
    if (known?.kvRevision === entry.revision) return known;
    const loaded = loadedIndex(SpaceIndex.parse(storedJson(entry.string())), entry.revision);
    this.parsedIndexes.set(key, loaded);
    return loaded;
  }

  /**
   * Moves the project's repository mark by compare-and-set, as a write moves its files (index-commit.ts `mark`):
   * `decide` gets the index as it is now and returns the mark, or undefined to leave it. With `at`, only from
   * that KV revision, once: false when the index has moved since.
   */
  markRepository(project: string, decide: (current: LoadedIndex) => RepositoryMark | undefined, at?: number): Promise<boolean> {
    return this.commits.mark({ kind: "project", id: project }, decide, at);
  }

  /** The latest live revision of `path`, or undefined. */
  async stat(space: FileSpaceRef, path: string): Promise<FileRevision | undefined> {
    const file = (await this.index(space)).files.get(path);
    return file?.deleted === true ? undefined : file;
  }

  /** The latest revision of `path` (or revision `revision`) with its content; FILE_NOT_FOUND when there is none. */
  async read(space: FileSpaceRef, path: string, revision?: number): Promise<{ file: FileRevision; content: Uint8Array }> {
    const file = revision === undefined ? await this.stat(space, path) : (await this.revisions(space, path)).find((one) => one.revision === revision);
    if (!file) throw new AppError("FILE_NOT_FOUND", revision === undefined ? `File not found: ${path}` : `Revision ${revision} of ${path} not found`);
    if (file.deleted === true) throw new AppError("FILE_NOT_FOUND", `Revision ${file.revision} of ${path} is its deletion`);
    return { file, content: await this.content(file.sha256) };
  }

  /** The content named `sha256`, from the cache or the object store. */
  content(sha256: string): Promise<Uint8Array> {
    return this.contents.read(sha256);
  }

  /** Writes one file as a new revision. */
  async write(space: FileSpaceRef, path: string, content: Uint8Array | string, author: FileAuthor): Promise<FileRevision> {
    const bytes = typeof content === "string" ? encoder.encode(content) : content;
    const [written] = await this.apply(space, [{ path, content: bytes }], author);
    return written as FileRevision;
  }

  /** Deletes one file (a revision too); FILE_NOT_FOUND when it does not exist. */
  async remove(space: FileSpaceRef, path: string, author: FileAuthor): Promise<FileRevision> {
    const [removed] = await this.apply(space, [{ path, content: null }], author, { mustExist: true });
    return removed as FileRevision;
  }

  /** Makes revision `revision` the latest again, as a new revision. */
  async restore(space: FileSpaceRef, path: string, revision: number, author: FileAuthor): Promise<FileRevision> {
    const old = await this.read(space, path, revision);
    return this.write(space, path, old.content, author);
  }

  /**
   * Changes one file from its latest content (an edit, an append): `change` gets the live revision and its
   * content (undefined when there is none) and returns the new content, or throws to refuse. The write names
   * the revision it was made from, so a change never lands on content it did not see: when another writer
   * got there first, `change` runs again on that writer's content.
   */
  async modify(space: FileSpaceRef, path: string, change: (current: CurrentFile | undefined) => Uint8Array, author: FileAuthor): Promise<FileRevision> {
    for (let round = 0; round < maxCasRounds; round += 1) {
      const latest = (await this.index(space)).files.get(path);
      const live = latest?.deleted === true ? undefined : latest;
      const content = change(live ? { file: live, content: await this.content(live.sha256) } : undefined);
      try {
        const [written] = await this.apply(space, [{ path, content }], author, { from: latest?.revision ?? 0 });
        return written as FileRevision;
      } catch (error) {
        if (!(error instanceof FileMoved)) throw error;
      }
    }
    throw alwaysBusy();
  }

  /**
   * Applies changes as one step: every content is stored, then the index moves once by compare-and-set, with
   * the quota of the space checked on the whole batch, so a script's files land all together or not at all.
   * A deletion of a missing file is skipped (or FILE_NOT_FOUND with `mustExist`). With `from`, the batch's
   * one file must still be at that revision (0: never written), else FileMoved (for `modify`). Returns the new revisions.
   */
  async apply(space: FileSpaceRef, changes: readonly FileChange[], author: FileAuthor, options: CommitOptions = {}): Promise<FileRevision[]> {
    const hashes = await Promise.all(
      changes.map(({ content }) => (content === null ? Promise.resolve(undefined) : content instanceof Uint8Array ? this.contents.store(content) : Promise.resolve(content.sha256))),
    );
    return this.commits.run(space, changes, hashes, author, options);
  }

  /** Every kept revision of `path`, newest first (at least the last 32: the history holds 64 records of two). */
  async revisions(space: FileSpaceRef, path: string): Promise<FileRevision[]> {
    const byRevision = new Map<number, FileRevision>();
    const history = await this.options.revisions.history({ key: historyKey(space, path) });
    for await (const entry of history) {
      if (entry.operation !== "PUT") continue;
      const record = HistoryRecord.safeParse(storedJson(entry.string()));
      if (!record.success) continue;
      for (const revision of [record.data.replaced, record.data.written]) {
        if (revision && revision.path === path) byRevision.set(revision.revision, revision);
      }
    }
    const latest = (await this.index(space)).files.get(path);
    if (latest) byRevision.set(latest.revision, latest);
    return [...byRevision.values()].sort((a, b) => b.revision - a.revision);
  }

  /** Forgets a space whole: its index, its files' revisions and a project's code snapshot. Returns how many live files it had. */
  async purge(space: FileSpaceRef): Promise<number> {
    const current = await this.index(space);
    const keys: string[] = [];
    for await (const key of await this.options.revisions.keys(`${historyPrefix(space)}.*`)) keys.push(key);
    await Promise.all(keys.map((key) => this.options.revisions.purge(key)));
    if (current.kvRevision !== 0) await this.options.index.purge(indexKey(space));
    if (space.kind === "project") await this.sources.purge(space.id);
    return usageOf(current.files.values()).files;
  }

  /**
   * Stores the file `file` on local disk, whose bytes hash to `sha256`, as a content (an upload the caller
   * hashed while receiving it), streamed in windows so a large one never sits in memory. Returns what a
   * FileChange names it by.
   */
  storeFile(file: string, sha256: string, size: number): Promise<StoredContent> {
    return this.contents.storeFile(file, sha256, size);
  }

  /** Stores bytes as a content, not through the cache (a code snapshot's files are many and mostly unread); returns its sha256. */
  storeBytes(content: Uint8Array): Promise<string> {
    return this.contents.storeBytes(content);
  }
}
