import type { KV, KvEntry, NatsConnection } from "nats";
import { AppError, decodeJson, encodeJson, isCasConflict, natsFailureKind, retryWhileLeaderless } from "@agent-orchestrator/shared/runtime";
import { ConversationMessage, SessionHead, SessionRecord, zeroUsage, type ConversationBatch, type SessionStatus } from "@agent-orchestrator/shared/wire";
import { z } from "zod";
import { readThroughFailover, writeThroughFailover } from "../nats/kv-failover.js";
import { ConversationChunks } from "./conversation-chunks.js";
import { chatKey, everyHeadFilter, headKey, projectChatKey } from "./session-keys.js";
import { openSessionsBucket, storeFull, whileRoom } from "./sessions-bucket.js";

// the facade's callers (tests that write a head as an older version did) name a head's key through it
export { headKey } from "./session-keys.js";

const titleChars = 80;

/** What a save needs to know about the stored session it read: the head's revision and where its conversation lies. */
export interface SessionVersion {
  /** the head's KV revision; 0 when the session has no head yet (read in an older shape), so its save creates one */
  revision: number;
  batches: readonly ConversationBatch[];
  title: string;
  /** the key of the session in an older shape, removed once the save has written its head (migrations/) */
  replaces?: string;
}

export interface StoredSession {
  record: SessionRecord;
  version: SessionVersion;
}

/**
 * Where a session with no head may still be, in a shape from before heads and batches: asked by `get` and
 * `getState` when they find no head, it gives the session as a version whose save writes its head (`replaces`).
 * The reader lives in migrations/ (one-value-session-migration.ts), so the store names no old shape itself.
 */
export interface OlderSessionShapes {
  find(bucket: KV, id: string, owner: string): Promise<StoredSession | undefined>;
}

const ChatPointer = z.object({ owner: z.string(), project_id: z.string() });
export type ChatPointer = z.infer<typeof ChatPointer>;
const ProjectChat = z.object({ owner: z.string(), title: z.string().optional() });
type ProjectChat = z.infer<typeof ProjectChat>;

const firstUserText = (messages: readonly ConversationMessage[]): string => {
  const content = messages.find((message) => message.role === "user")?.["content"];
  return typeof content === "string" ? content.slice(0, titleChars) : "";
};

/**
 * Sessions in the JetStream KV bucket `sessions`: they survive any orchestrator process and any replica
 * can serve the next turn. A session is a small head (`owner.<owner>.<session>`, written with
 * compare-and-set) plus its conversation in batches of chunk keys (conversation-chunks.ts), one batch per
 * save, so no value grows with the conversation. A batch is written before the head that names it, so a save
 * that loses the compare-and-set leaves the stored session as it was. Each key's place: session-keys.ts.
 */
export class SessionStore {
  private readonly conversation: ConversationChunks;
  private readonly olderShapes: OlderSessionShapes | undefined;

  private constructor(
    private readonly kv: KV,
    options: { olderShapes?: OlderSessionShapes },
  ) {
    this.conversation = new ConversationChunks(kv);
    this.olderShapes = options.olderShapes;
  }

  /**
   * Reads and a turn's writes are tried again through a server's loss (kv-failover.ts): a request sent through a
   * server as it dies is never answered, and a turn must not fail for it.
   */
  private read(key: string): Promise<KvEntry | null> {
    return readThroughFailover(() => this.kv.get(key));
  }

  private create(key: string, value: Uint8Array): Promise<number> {
    return writeThroughFailover(this.kv, key, value, () => this.kv.create(key, value));
  }

  /** Opens (or creates) the bucket, bounded to `maxBytes` when given (sessions-bucket.ts). */
  static async open(connection: NatsConnection, bucket: string, options: { maxBytes?: number; olderShapes?: OlderSessionShapes } = {}): Promise<SessionStore> {
    const { olderShapes, ...bounds } = options;
    return new SessionStore(await openSessionsBucket(connection, bucket, bounds), olderShapes ? { olderShapes } : {});
  }

  /** A store over an open bucket (openSessionsBucket; tests wrap the bucket to see which keys are read). */
  static over(kv: KV, options: { olderShapes?: OlderSessionShapes } = {}): SessionStore {
    return new SessionStore(kv, options);
  }

  /**
   * Creates a new session with its first turn already running: its head in one KV create, made at once with its
   * pointers. Returns undefined if the id is taken (a redelivered turn finds its session that way). The chat pointer
   * claims the id for its owner: when it is another chat's, or a pointer cannot be written, the head made alongside
   * is removed again, so no head is left that no pointer names.
   */
  async createRunning(input: NewSession & { runId: string }): Promise<StoredSession | undefined> {
    const now = new Date().toISOString();
    const record = newSession(input, now, { status: "running", run_id: input.runId, run_started_at: now, last_run_id: input.runId, messages: [] });
    const head: SessionHead = { ...withoutMessages(record), title: "", batches: [] };
    const key = headKey(input.owner, input.id);
    const [pointed, made] = await Promise.allSettled([this.point(input.id, input.owner, input.projectId), whileRoom(() => this.create(key, encodeJson(head)))]);
    if (pointed.status === "rejected" || !pointed.value) {
      // best effort: the pointer's own failure is what the turn reports
      if (made.status === "fulfilled") await this.kv.purge(key, { previousSeq: made.value }).catch(() => undefined);
      if (pointed.status === "rejected") throw pointed.reason;
      return undefined;
    }
    if (made.status === "rejected") {
      if (isCasConflict(made.reason)) return undefined;
      throw made.reason;
    }
    return { record, version: { revision: made.value, batches: [], title: "" } };
  }

  /**
   * Creates a new idle session that already holds `messages` (an agent's greeting, sessions/greeting.ts), with the
   * pointers and head a first turn's `createRunning` writes and no turn counted: its conversation's batch first, then
   * its head in one KV create. Returns undefined if the id is taken.
   */
  async createIdle(input: NewSession & { messages: ConversationMessage[] }): Promise<StoredSession | undefined> {
    if (!(await this.point(input.id, input.owner, input.projectId))) return undefined;
    const record = newSession(input, new Date().toISOString(), { status: "idle", run_id: null, run_started_at: null, last_run_id: null, messages: input.messages });
    const written: string[] = [];
    try {
      const batch = await whileRoom(() => this.conversation.write(input.id, input.messages, written));
      const head: SessionHead = { ...withoutMessages(record), title: "", batches: [batch] };
      const revision = await whileRoom(() => this.create(headKey(input.owner, input.id), encodeJson(head)));
      return { record, version: { revision, batches: [batch], title: "" } };
    } catch (error) {
      // the batch is named by no head: remove it
      await this.conversation.discard(written);
      if (isCasConflict(error)) return undefined;
      throw error;
    }
  }

  /**
   * One owner's session with its whole conversation; undefined when it does not exist or is someone else's.
   * `onHead` hears the head as soon as it is read, so what it names (the chat's project) is read while the
   * conversation is.
   */
  async get(id: string, owner: string, onHead?: (head: SessionHead) => void): Promise<StoredSession | undefined> {
    const entry = await this.read(headKey(owner, id));
    if (entry && entry.operation === "PUT") {
      const head = decodeJson(entry.value, SessionHead);
      onHead?.(head);
      const messages = await this.conversation.read(id, head.batches);
      const { title, batches, ...state } = head;
      return { record: { ...state, messages }, version: { revision: entry.revision, batches, title } };
    }
    return this.olderShapes?.find(this.kv, id, owner);
  }

  /** One owner's session's state without its conversation (one KV read); undefined as for `get`. */
  async getState(id: string, owner: string): Promise<Omit<SessionRecord, "messages"> | undefined> {
    const entry = await this.read(headKey(owner, id));
    if (entry && entry.operation === "PUT") {
      const { title: _title, batches: _batches, ...state } = decodeJson(entry.value, SessionHead);
      return state;
    }
    return (await this.olderShapes?.find(this.kv, id, owner))?.record;
  }

  /** Where the chat `id` is (its owner and project), whoever asks; undefined for an unknown id. */
  async locate(id: string): Promise<ChatPointer | undefined> {
    const entry = await this.read(chatKey(id));
    return entry && entry.operation === "PUT" ? decodeJson(entry.value, ChatPointer) : undefined;
  }

  /**
   * Writes the chat's pointers (idempotent), both at once: `chat.<id>` by create, so an id once taken stays its
   * owner's, and `project.<project>.<id>`, created, never put, so a redelivered first turn does not drop a title
   * given meanwhile. False when the id is another owner's or lies in another project; the project pointer this
   * call made for it is removed then.
   */
  async point(id: string, owner: string, projectId: string): Promise<boolean> {
    const made = (key: string, value: Uint8Array): Promise<boolean> =>
      whileRoom(() => this.create(key, value)).then(
        () => true,
        (error: unknown) => {
          if (!isCasConflict(error)) throw error;
          return false;
        },
      );
    const projectKey = projectChatKey(projectId, id);
    const [claimed, listed] = await Promise.all([
      made(chatKey(id), encodeJson({ owner, project_id: projectId } satisfies ChatPointer)),
      made(projectKey, encodeJson({ owner } satisfies ProjectChat)),
    ]);
    if (claimed) return true;
    const taken = await this.locate(id);
    if (taken?.owner === owner && taken.project_id === projectId) return true;
    if (listed) await this.kv.purge(projectKey);
    return false;
  }

  /** The title a person gave the chat `id` of `projectId`, if any. */
  async explicitTitle(projectId: string, id: string): Promise<string | undefined> {
    const entry = await this.read(projectChatKey(projectId, id));
    return entry && entry.operation === "PUT" ? decodeJson(entry.value, ProjectChat).title : undefined;
  }

  /**
   * Gives the chat `id` of `projectId` a title, by compare-and-set on its project key (a conflict is thrown: the
   * caller retries). SESSION_NOT_FOUND when the key is gone: the chat was deleted.
   */
  async retitle(projectId: string, id: string, title: string): Promise<void> {
    const key = projectChatKey(projectId, id);
    const entry = await this.read(key);
    if (!entry || entry.operation !== "PUT") throw new AppError("SESSION_NOT_FOUND", "Session not found");
    const { owner } = decodeJson(entry.value, ProjectChat);
    await whileRoom(() => this.kv.update(key, encodeJson({ owner, title } satisfies ProjectChat), entry.revision));
  }

  /** One owner's chat's head with its revision (for a delete that must see it unchanged); undefined when missing. */
  async headOf(id: string, owner: string): Promise<{ head: SessionHead; revision: number } | undefined> {
    const entry = await this.read(headKey(owner, id));
    return entry && entry.operation === "PUT" ? { head: decodeJson(entry.value, SessionHead), revision: entry.revision } : undefined;
  }

  /** The heads of a project's chats with their revisions (for a delete that must see each unchanged), each with the title a person gave it. */
  async listByProject(projectId: string): Promise<Array<{ head: SessionHead; revision: number }>> {
    const keys: string[] = [];
    for await (const key of await this.kv.keys(projectChatKey(projectId, "*"))) keys.push(key);
    const chats: Array<{ head: SessionHead; revision: number }> = [];
    for (const key of keys) {
      const pointer = await this.read(key);
      if (!pointer || pointer.operation !== "PUT") continue;
      const { owner, title } = decodeJson(pointer.value, ProjectChat);
      const entry = await this.read(headKey(owner, key.slice(key.lastIndexOf(".") + 1)));
      if (!entry || entry.operation !== "PUT") continue;
      const head = decodeJson(entry.value, SessionHead);
      chats.push({ head: title === undefined ? head : { ...head, title }, revision: entry.revision });
    }
    return chats;
  }

  /**
   * Removes a chat whole: its head only if it is still at `revision` (a turn that started since loses nothing
   * silently: the conflict is thrown), then its conversation and its pointers.
   */
  async remove(head: SessionHead, revision: number): Promise<void> {
    await this.kv.purge(headKey(head.owner, head.id), { previousSeq: revision });
    const keys = this.conversation.keysOf(head.id, head.batches);
    if (head.project_id) keys.push(projectChatKey(head.project_id, head.id));
    keys.push(chatKey(head.id));
    for (const key of keys) await this.kv.purge(key);
  }

  /** Every head still without a project (written before projects), with its revision. */
  async headsWithoutProject(): Promise<Array<{ head: SessionHead; revision: number }>> {
    const keys: string[] = [];
    for await (const key of await this.kv.keys(everyHeadFilter)) keys.push(key);
    const found: Array<{ head: SessionHead; revision: number }> = [];
    for (const key of keys) {
      const entry = await this.read(key);
      if (!entry || entry.operation !== "PUT") continue;
      const head = decodeJson(entry.value, SessionHead);
      if (head.project_id === undefined) found.push({ head, revision: entry.revision });
    }
    return found;
  }

  /**
   * Puts a head written before projects into `projectId`: pointers first, then the head by compare-and-set at
   * `revision`. A conflict (another replica moved it, or a turn changed it) is thrown as it is.
   */
  async placeInProject(head: SessionHead, revision: number, projectId: string): Promise<void> {
    if (!(await this.point(head.id, head.owner, projectId))) throw new AppError("INTERNAL", `Session ${head.id} is already placed elsewhere`);
    await this.kv.update(headKey(head.owner, head.id), encodeJson({ ...head, project_id: projectId } satisfies SessionHead), revision);
  }

  /** One owner's sessions, newest first: their heads only, found by the owner's key prefix. */
  async listByOwner(owner: string, limit = 200): Promise<SessionHead[]> {
    // collect the keys first: awaiting other KV calls while iterating cuts the key listing short
    const keys: string[] = [];
    for await (const key of await this.kv.keys(headKey(owner, "*"))) keys.push(key);
    const heads: SessionHead[] = [];
    for (const key of keys) {
      const entry = await this.read(key);
      if (entry && entry.operation === "PUT") heads.push(decodeJson(entry.value, SessionHead));
    }
    return heads.sort((a, b) => b.created_at.localeCompare(a.created_at)).slice(0, limit);
  }

  /**
   * Saves `record` only if its head is still at `version` (compare-and-set): the messages added since
   * that read go into a new batch first, then the head. Only a lost compare-and-set is SESSION_BUSY, and a
   * full bucket QUOTA_EXCEEDED (nothing of the batch is kept); any other failure is thrown as it is.
   * `options.before` is what must be stored before the head says so (a turn's spending: turn-finish.ts), made
   * while the batch is written. Returns the new version.
   */
  async update(record: SessionRecord, version: SessionVersion, options: { updatedAt?: string; before?: Promise<unknown> } = {}): Promise<SessionVersion> {
    const { updatedAt = new Date().toISOString(), before } = options;
    const storedCount = version.batches.reduce((count, batch) => count + batch.messages, 0);
    const appended = record.messages.slice(storedCount);
    const batches = [...version.batches];
    const written: string[] = [];
    if (appended.length > 0) {
      const batch = await whileRoom(() => this.conversation.write(record.id, appended, written)).catch(async (error: unknown) => {
        await this.conversation.discard(written);
        throw error;
      });
      batches.push(batch);
    }
    await before?.catch(async (error: unknown) => {
      await this.conversation.discard(written);
      throw error;
    });
    const title = version.title || firstUserText(record.messages);
    const head: SessionHead = { ...withoutMessages(record), updated_at: updatedAt, title, batches };
    const key = headKey(record.owner, record.id);
    let revision: number;
    try {
      const value = encodeJson(head);
      revision = version.revision === 0 ? await this.create(key, value) : await writeThroughFailover(this.kv, key, value, () => this.kv.update(key, value, version.revision));
    } catch (error) {
      // the batch is named by no head: remove it (a failure here leaves only unreachable keys), unless the head's
      // write timed out to the end, which may have landed naming it
      if (natsFailureKind(error) !== "timeout") await this.conversation.discard(written);
      if (isCasConflict(error)) throw new AppError("SESSION_BUSY", "The session was changed by another turn", { cause: error });
      throw natsFailureKind(error) === "storage-full" ? storeFull(error) : error;
    }
    if (version.replaces !== undefined) await this.kv.delete(version.replaces);
    return { revision, batches, title };
  }
}

function withoutMessages(record: SessionRecord): Omit<SessionRecord, "messages"> {
  const { messages: _messages, ...state } = record;
  return state;
}

/** Who makes a chat, in which project, and on which branch of its repository when a person named one. */
export interface NewSession {
  id: string;
  agentId: string;
  owner: string;
  projectId: string;
  branch?: string | undefined;
}

/** A chat as it is made: no turn counted yet, no usage; `state` says whether its first turn runs already. */
function newSession(input: NewSession, now: string, state: Pick<SessionRecord, "status" | "run_id" | "run_started_at" | "last_run_id" | "messages">): SessionRecord {
  const branch = input.branch === undefined ? {} : { branch: input.branch };
  return { id: input.id, agent_id: input.agentId, owner: input.owner, project_id: input.projectId, ...branch, ...state, usage: zeroUsage(), turns: 0, created_at: now, updated_at: now };
}

/**
 * Saves the end of the turn that marked the session running at `version`: `record` with the turn's `status`, and no
 * turn running. `counted` (the turn's spending) is stored before the head, while the conversation is written. A
 * function beside the store, not a method of it: its write is the store's `update`, traced as that
 * (traced-session-store.ts, docs/operations.md).
 */
export function saveTurnEnd(store: SessionStore, version: SessionVersion, record: SessionRecord, status: SessionStatus, counted?: Promise<void>): Promise<SessionVersion> {
  return retryWhileLeaderless(() => store.update({ ...record, status, run_id: null, run_started_at: null }, version, counted ? { before: counted } : {}));
}
