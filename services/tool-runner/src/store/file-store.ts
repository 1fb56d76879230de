import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import {
  AppError,
  fileStoreElectionWaitMs,
  isCasConflict,
  KeyedQueue,
  jetStreamNames,
  parseJson,
  putObjectPaced,
  retryNats,
  type FileAuthor,
  type FileRevision,
  type FileSpaceRef,
  type NatsRetryPolicy,
} from "@agent-orchestrator/shared";
import { LRUCache } from "lru-cache";
import type { JetStreamClient, KV, NatsConnection, ObjectInfo, ObjectStore } from "nats";
import type { ToolRunnerConfig } from "../config.js";
import { replyOverheadBytes } from "../reply-budget.js";
import { ContentCache } from "./content-cache.js";
import { HistoryRecord, SpaceIndex, historyKey, historyPrefix, indexKey, usageOf, type LoadedIndex } from "./space-index.js";
import { SourceSnapshots } from "./source-snapshots.js";
import { quotaVerdict, type SpaceQuota } from "./space-quota.js";

/** Content already in the contents store (an upload stored by `storeFile`), named by its sha256. */
export interface StoredContent {
  sha256: string;
  size: number;
}

/** One change of a batch: new content for a path, or `null` to delete it. */
export interface FileChange {
  path: string;
  content: Uint8Array | StoredContent | null;
  /** what the revision records about an upload's conversion to Markdown */
  notes?: Pick<FileRevision, "conversion" | "converted_from">;
}

/** The latest revision of a file and its content, as a `modify` change is given it. */
export interface CurrentFile {
  file: FileRevision;
  content: Uint8Array;
}

/** Thrown inside a compare-and-set round when the file a `modify` read has moved on: the change is made again. */
class FileMoved extends Error {}

/** How `apply` treats its batch. */
interface ApplyOptions {
  /** a deletion of a missing file is FILE_NOT_FOUND rather than skipped */
  mustExist?: boolean;
  /** the revision the batch's file must still be at (0: never written): a change made from that content */
  from?: number;
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
  /**
   * a space index's value as the stream's leader holds it now (not a replica's direct get): with it, every
   * compare-and-set is checked after it is acknowledged (`survived`), which clustered nats-server before
   * 2.9.21 needs (below); without it (one server) it is not
   */
  leaderRead?: (key: string) => Promise<string | undefined>;
  /**
   * the value another compare-and-set stored for `key` between revision `base` and `written` (this write's),
   * if any: there should be none, and one found means this write was acknowledged over it (below)
   */
  interleaved?: (key: string, base: number, written: number) => Promise<string | undefined>;
  now?: () => Date;
  /** told of every write once its index has moved (the audit log's `file_written`, tool-runner-service.ts); never awaited */
  onCommitted?: (space: FileSpaceRef, written: readonly FileRevision[], author: FileAuthor) => void;
}

// compare-and-set rounds one change may take when other writers keep winning; each round re-reads the index
const maxCasRounds = 64;
/**
 * A read, a content-addressed put (the name is the content's sha256) or a revision record: a repeat of one
 * that timed out but landed stores the same thing again, so it is tried again through an election.
 */
const repeatable: NatsRetryPolicy = { retryOn: ["no-responders", "no-leader", "timeout"], budgetMs: fileStoreElectionWaitMs };
/**
 * A compare-and-set of a space's index: tried again only when nobody took it. One that timed out may have
 * landed, and a repeat would then lose to itself and make the change twice; it fails instead (WRITE_FAILED).
 */
const notTaken: NatsRetryPolicy = { retryOn: ["no-responders", "no-leader"], budgetMs: fileStoreElectionWaitMs };
const encoder = new TextEncoder();

/** A value this store wrote; text that is not JSON any more becomes `undefined`, which its schema refuses. */
function storedJson(text: string): unknown {
  const parsed = parseJson(text);
  return parsed.ok ? parsed.value : undefined;
}

/**
 * The files of projects and chats, every byte in JetStream (docs/projects.md "Storage"). Contents are
 * objects named by their sha256 in an Object Store, so equal files are stored once and a cached content is
 * never stale; each space's index is one KV value moved by compare-and-set, which decides the quota and the
 * file's next revision together; each file's revisions are the KV history of a key of its own. A write stores
 * the content first and moves the index second, so a reader never sees an index entry without its content.
 */
export class FileStore {
  private readonly now: () => Date;
  // a space's index changes made in this process, one at a time
  private readonly indexWrites = new KeyedQueue();
  // the last index parsed per space, for the spaces in use (callers never change a loaded index's map)
  private readonly parsedIndexes = new LRUCache<string, LoadedIndex>({ max: 256 });

  /** each project's read-only code snapshot, kept beside the spaces' indexes */
  readonly sources: SourceSnapshots;

  constructor(private readonly options: FileStoreOptions) {
    this.now = options.now ?? (() => new Date());
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
      // two values per key: a write acknowledged over another's (nats-server issue 4320) can still read it
      js.views.kv(names.fileIndexBucket, { history: 2, replicas }),
      js.views.kv(names.fileRevisionsBucket, { history: 64, replicas }),
      js.views.os(names.fileContentsStore, { replicas }),
    ]);
    const checks = replicas > 1 ? await clusterChecks(js, names.fileIndexBucket) : undefined;
    return new FileStore({
      flush: settings.flush,
      index,
      revisions,
      contents,
      cache: new ContentCache(settings.cacheBytes),
      quotas: settings.quotas,
      maxIndexBytes: settings.maxIndexBytes,
      ...(settings.onCommitted ? { onCommitted: settings.onCommitted } : {}),
      ...checks,
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
    const parsed = SpaceIndex.parse(storedJson(entry.string()));
    const loaded = { files: new Map(parsed.files.map((file) => [file.path, file])), kvRevision: entry.revision };
    this.parsedIndexes.set(key, loaded);
    return loaded;
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
  async content(sha256: string): Promise<Uint8Array> {
    const cached = this.options.cache.get(sha256);
    if (cached) return cached;
    const content = await this.options.contents.getBlob(sha256);
    if (content === null) throw new AppError("INTERNAL", "A file's content is missing from the store");
    this.options.cache.set(sha256, content);
    return content;
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
  async apply(space: FileSpaceRef, changes: readonly FileChange[], author: FileAuthor, options: ApplyOptions = {}): Promise<FileRevision[]> {
    const hashes = await Promise.all(
      changes.map(({ content }) => (content === null ? Promise.resolve(undefined) : content instanceof Uint8Array ? this.store(content) : Promise.resolve(content.sha256))),
    );
    // one compare-and-set at a time per space in this process: the writers of one replica queue instead of
    // racing each other for the index, so only other replicas' writes can make a round lose
    return this.indexWrites.run(indexKey(space), () => this.commit(space, changes, hashes, author, options));
  }

  private async commit(
    space: FileSpaceRef,
    changes: readonly FileChange[],
    hashes: ReadonlyArray<string | undefined>,
    author: FileAuthor,
    options: ApplyOptions,
  ): Promise<FileRevision[]> {
    let overwritten: LoadedIndex | undefined;
    for (let round = 0; round < maxCasRounds; round += 1) {
      // a lost round waits a little, at random, so replicas that keep colliding fall out of step
      if (round > 0 && !overwritten) await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(20, round * 2)));
      const redo = overwritten !== undefined;
      const current =
        overwritten ??
        (await this.index(space).catch((error: unknown) => {
          throw storeFailure(error);
        }));
      overwritten = undefined;
      const next = new Map(current.files);
      const at = this.now().toISOString();
      const written: Array<{ revision: FileRevision; replaced: FileRevision | undefined }> = [];
      for (const [position, change] of changes.entries()) {
        const before = next.get(change.path);
        if (options.from !== undefined && (before?.revision ?? 0) !== options.from) {
          // the other writer's index this write was acknowledged over goes back as it was (best effort, as a
          // lost round of a redo below), and the change is made again from that writer's content
          if (redo) await this.options.index.update(indexKey(space), indexValue(current.files), current.kvRevision).catch(() => undefined);
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
      const verdict = quotaVerdict(space.kind === "project" ? "Project" : "Chat", usageOf(current.files.values()), usageOf(next.values()), this.options.quotas[space.kind]);
      if (verdict) throw verdict;
      const value = indexValue(next);
      if (value.byteLength > this.options.maxIndexBytes) {
        throw new AppError("QUOTA_EXCEEDED", `${space.kind === "project" ? "Project" : "Chat"} index full: it cannot list more files; delete some first`);
      }
      let stored: number;
      try {
        stored = await retryNats(
          () => (current.kvRevision === 0 ? this.options.index.create(indexKey(space), value) : this.options.index.update(indexKey(space), value, current.kvRevision)),
          notTaken,
        );
      } catch (error) {
        // another writer got there first: a new round from a fresh read (not a NATS failure, so not retried above)
        if (isCasConflict(error)) continue;
        throw storeFailure(error);
      }
      overwritten = await this.overwritten(space, current.kvRevision, stored);
      // this write replaced another writer's index: it is made again on top of that one, so both are kept
      if (overwritten) continue;
      if (!(await this.survived(space, written.map(({ revision }) => revision)))) continue;
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
      this.options.onCommitted?.(space, revisions, author);
      return revisions;
    }
    throw alwaysBusy();
  }

  /** Stores a revision record, waiting out an election; one that still cannot be stored is left to the file's next write. */
  private async recorded(key: string, record: Uint8Array): Promise<void> {
    await retryNats(() => this.options.revisions.put(key, record), repeatable).catch(() => undefined);
  }

  /**
   * Whether the index the stream's leader holds still has what this write recorded. nats-server before 2.9.21
   * can acknowledge two compare-and-sets on one key made from the same revision in a clustered stream
   * (nats-server issue 4320), and the later one then drops the other's revisions: a write that finds its own
   * revisions gone (or replaced by another writer's of the same number) is made again on top. A later write of
   * the same file has a higher revision and was made from an index that held this one. When the leader cannot
   * be asked, the acknowledgement stands.
   */
  private async survived(space: FileSpaceRef, written: readonly FileRevision[]): Promise<boolean> {
    const read = this.options.leaderRead;
    if (!read) return true;
    let text: string | undefined;
    try {
      text = await read(indexKey(space));
    } catch {
      return true;
    }
    const parsed = SpaceIndex.safeParse(text === undefined ? undefined : storedJson(text));
    if (!parsed.success) return false;
    const latest = new Map(parsed.data.files.map((file) => [file.path, file]));
    return written.every((mine) => {
      const now = latest.get(mine.path);
      if (!now || now.revision < mine.revision) return false;
      return now.revision > mine.revision || (now.sha256 === mine.sha256 && now.updated_at === mine.updated_at && JSON.stringify(now.author) === JSON.stringify(mine.author));
    });
  }

  /**
   * The index another writer stored between `base` and this write's `stored` revision, which this write (made
   * from `base`) was acknowledged over, dropping that writer's revisions (nats-server before 2.9.21, issue
   * 4320), as the index to make this write again on top of, at `stored`. Undefined when there is none or it
   * cannot be told.
   */
  private async overwritten(space: FileSpaceRef, base: number, stored: number): Promise<LoadedIndex | undefined> {
    const read = this.options.interleaved;
    if (!read) return undefined;
    const text = await read(indexKey(space), base, stored).catch(() => undefined);
    const parsed = SpaceIndex.safeParse(text === undefined ? undefined : storedJson(text));
    if (!parsed.success) return undefined;
    return { files: new Map(parsed.data.files.map((file) => [file.path, file])), kvRevision: stored };
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
   * hashed while receiving it), streamed in windows so a large one never sits in memory. A content the store
   * already holds is not sent again. Returns what a FileChange names it by.
   */
  async storeFile(file: string, sha256: string, size: number): Promise<StoredContent> {
    await this.put(sha256, (known) => known?.size === size, () => putObjectPaced(this.options.flush, this.options.contents, sha256, createReadStream(file)));
    return { sha256, size };
  }

  /** Stores bytes as a content (not through the cache: a code snapshot's files are many and mostly unread); returns its sha256. */
  async storeBytes(content: Uint8Array): Promise<string> {
    const sha256 = createHash("sha256").update(content).digest("hex");
    await this.put(sha256, () => true, () => this.options.contents.putBlob({ name: sha256 }, content));
    return sha256;
  }

  /** Stores a content unless this replica knows it is there; returns its sha256. */
  private async store(content: Uint8Array): Promise<string> {
    const sha256 = createHash("sha256").update(content).digest("hex");
    if (this.options.cache.has(sha256)) return sha256;
    await this.put(sha256, () => true, () => this.options.contents.putBlob({ name: sha256 }, content));
    this.options.cache.set(sha256, content);
    return sha256;
  }

  /**
   * Puts the content named `sha256` with `put` unless the store holds it already (and `same` agrees), waiting
   * out an election: a repeat of a put that timed out but landed stores the same bytes again.
   */
  private async put(sha256: string, same: (known: ObjectInfo) => boolean, put: () => Promise<unknown>): Promise<void> {
    try {
      await retryNats(async () => {
        const known = await this.options.contents.info(sha256);
        if (!known || known.deleted || !same(known)) await put();
      }, repeatable);
    } catch (error) {
      throw storeFailure(error);
    }
  }
}

function indexValue(files: ReadonlyMap<string, FileRevision>): Uint8Array {
  return encoder.encode(JSON.stringify({ files: [...files.values()] } satisfies SpaceIndex));
}

/**
 * A written file whose name is a folder of the space (`dir` while `dir/x.md` lives), or that lies under a
 * file (`file/x.md` while `file` lives), judged on the space as it would be after the batch: a space is a
 * tree, as on disk, so every listing, read and script materialisation sees one thing per name.
 */
function pathClash(files: ReadonlyMap<string, FileRevision>, written: readonly FileRevision[]): AppError | undefined {
  const live = (path: string) => {
    const file = files.get(path);
    return file !== undefined && file.deleted !== true;
  };
  let folders: Set<string> | undefined;
  for (const revision of written) {
    if (revision.deleted === true) continue;
    const segments = revision.path.split("/");
    for (let depth = 1; depth < segments.length; depth += 1) {
      const parent = segments.slice(0, depth).join("/");
      if (live(parent)) return new AppError("INVALID_PATH", `Not a folder: ${parent} is a file`);
    }
    if (!folders) {
      folders = new Set();
      for (const file of files.values()) {
        if (file.deleted === true) continue;
        for (let end = file.path.indexOf("/"); end !== -1; end = file.path.indexOf("/", end + 1)) folders.add(file.path.slice(0, end));
      }
    }
    if (folders.has(revision.path)) return new AppError("NOT_A_FILE", `Not a file: ${revision.path} is a folder`);
  }
  return undefined;
}

/**
 * A JetStream failure while storing (a full stream, no leader during an election, a timeout) as the tool's
 * WRITE_FAILED: nothing was recorded, the earlier revision stands, and the model may try again.
 */
function storeFailure(error: unknown): AppError {
  if (AppError.is(error)) return error;
  return new AppError("WRITE_FAILED", "The file could not be stored; nothing was changed. Try again shortly.", { cause: error });
}

/** The direct get by next subject, as nats.js 2.29 has it. */
interface DirectGets {
  getMessage(stream: string, query: { seq: number; next_by_subj: string }): Promise<{ seq: number; data: Uint8Array }>;
}

/**
 * The checks a clustered index needs (`survived`, `overwritten`): a key's value read from its stream's leader
 * (a stream message get, not a direct get a follower may answer), and the first value of a key stored after a
 * given revision (a direct get by next subject).
 */
async function clusterChecks(js: JetStreamClient, bucket: string): Promise<Pick<FileStoreOptions, "leaderRead" | "interleaved">> {
  const manager = await js.jetstreamManager();
  // the manager has direct gets; nats.js 2.29 leaves them out of the interface
  const direct = (manager as unknown as { direct: DirectGets }).direct;
  const stream = `KV_${bucket}`;
  const subject = (key: string) => `$KV.${bucket}.${key}`;
  const decoder = new TextDecoder();
  return {
    leaderRead: async (key) => {
      try {
        return decoder.decode((await manager.streams.getMessage(stream, { last_by_subj: subject(key) })).data);
      } catch (error) {
        // no message for the subject: the key was never written
        if ((error as { api_error?: { err_code?: number } }).api_error?.err_code === 10037) return undefined;
        throw error;
      }
    },
    interleaved: async (key, base, written) => {
      const message = await direct.getMessage(stream, { seq: base + 1, next_by_subj: subject(key) });
      return message.seq < written ? decoder.decode(message.data) : undefined;
    },
  };
}

/** A change that lost every compare-and-set round it was given: other writers kept the file moving. */
function alwaysBusy(): AppError {
  return new AppError("BUSY", "The file is being written by others all the time; try again");
}
