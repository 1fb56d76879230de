import { randomUUID } from "node:crypto";
import type { KV, NatsConnection } from "nats";
import { AppError, decodeJson, encodeJson, isCasConflict, retryWhileLeaderless } from "@agent-orchestrator/shared/runtime";
import { ProjectRecord, roleOf } from "@agent-orchestrator/shared/wire";
import { z } from "zod";
import { retryOnConflict } from "../nats/compare-and-set.js";
import { readExisting, readThroughFailover, writeThroughFailover } from "../nats/kv-failover.js";
import { ProjectIndex } from "./project-index.js";

/** The name a user's personal default project gets when it is made. */
const personalProjectName = "Personal";

const projectKey = (id: string): string => `project.${id}`;
/** User names may hold characters KV keys do not allow (`@`, spaces, …): the key holds them base64url-encoded. */
const defaultKey = (user: string): string => `default.${Buffer.from(user, "utf8").toString("base64url")}`;
const DefaultPointer = z.object({ project_id: z.string() });
/** A project's two writes at its creation are milliseconds apart: its index key alone for this long is a leftover. */
const leftoverAfterMs = 60_000;
/** Users whose default project's id this process keeps (about 100 bytes each); the oldest is forgotten past this. */
const keptDefaults = 10_000;

/** A project as read, with the revision a compare-and-set write must name. */
export interface StoredProject {
  record: ProjectRecord;
  revision: number;
}

/**
 * Projects in the JetStream KV bucket `projects` (docs/projects.md "Storage"): `project.<id>` holds the
 * ProjectRecord, `default.<user, base64url>` the id of the user's personal default project, and the per-user index
 * (ProjectIndex) which projects each user made or was added to, so a user's listing reads their projects only.
 * Every change is a compare-and-set on the record's revision, made again from a fresh read when another writer (a
 * second request, a second replica) got there first, so no change is lost; each change keeps the index in step.
 */
export class ProjectStore {
  private readonly index: ProjectIndex;
  /**
   * each user's default project id as its pointer names it: a pointer is made once and never changed, so a turn in
   * the default project reads only the project's record
   */
  private readonly defaults = new Map<string, string>();

  private constructor(
    private readonly kv: KV,
    private readonly leftoverMs = leftoverAfterMs,
  ) {
    this.index = new ProjectIndex(kv);
  }

  static async open(connection: NatsConnection, bucket: string): Promise<ProjectStore> {
    return new ProjectStore(await connection.jetstream().views.kv(bucket, { history: 1 }));
  }

  /** A store over an open bucket (tests wrap the bucket to see which keys are read, or take leftovers at once). */
  static over(kv: KV, options: { leftoverMs?: number } = {}): ProjectStore {
    return new ProjectStore(kv, options.leftoverMs);
  }

  /**
   * A new (not personal) project owned by `owner`, who may own at most `limit` of them (PROJECTS_PER_USER; the
   * personal project is not counted): PROJECT_LIMIT past it. The new project is indexed first and the owner's
   * indexed projects counted after, so two creations at once both count each other and neither passes the limit
   * (at the limit both may be refused: one retry succeeds).
   */
  async create(owner: string, name: string, limit: number): Promise<ProjectRecord> {
    const record = newRecord(randomUUID(), owner, name, false);
    await this.index.add(owner, "owner", record.id);
    if ((await this.ownedCount(owner, record.id, limit)) > limit) {
      await this.index.remove(owner, "owner", record.id);
      throw new AppError("PROJECT_LIMIT", `You own ${limit} projects, the most one user may (PROJECTS_PER_USER); delete one to make another`);
    }
    // any other failure leaves the key: a key without its record is skipped by readers and swept at the limit
    await retryWhileLeaderless(() => this.kv.create(projectKey(record.id), encodeJson(record)));
    return record;
  }

  /**
   * How many projects `owner` owns, `creating` among them. Only past the limit are the others read: an indexed
   * project whose record has been missing for a minute (a delete or a creation that stopped half-way) is
   * unindexed and not counted, so leftovers never eat into the limit; a younger one is a creation under way and
   * counts. Ages are taken between two keys' server times, so no clock but the server's matters.
   */
  private async ownedCount(owner: string, creating: string, limit: number): Promise<number> {
    const { owner: owned } = await this.index.of(owner);
    if (owned.length <= limit) return owned.length;
    const now = (await this.index.entry(owner, "owner", creating))?.created.getTime() ?? 0;
    let count = owned.length;
    for (const id of owned) {
      if (id === creating || (await this.get(id))) continue;
      const key = await this.index.entry(owner, "owner", id);
      if (key && now - key.created.getTime() < this.leftoverMs) continue;
      if (key) await this.index.remove(owner, "owner", id, key.revision);
      count--;
    }
    return count;
  }

  async get(id: string): Promise<StoredProject | undefined> {
    const entry = await readThroughFailover(() => this.kv.get(projectKey(id)));
    if (!entry || entry.operation !== "PUT") return undefined;
    return { record: decodeJson(entry.value, ProjectRecord), revision: entry.revision };
  }

  /**
   * The user's personal default project, made on first use. The pointer `default.<user>` is claimed first with a
   * create (only one of two racing callers wins it; the loser reads the winner's id), and the record is then
   * created under that id by whoever finds it missing, so two replicas racing make one project, and a caller
   * that died between the two steps leaves a pointer the next caller completes.
   */
  async defaultFor(user: string): Promise<ProjectRecord> {
    const id = await this.defaultId(user);
    const stored = await this.get(id);
    if (stored) return stored.record;
    const record = newRecord(id, user, personalProjectName, true);
    try {
      const value = encodeJson(record);
      await writeThroughFailover(this.kv, projectKey(id), value, () => this.kv.create(projectKey(id), value));
      return record;
    } catch (error) {
      if (!isCasConflict(error)) throw error;
      const made = await readExisting(this.kv, projectKey(id));
      if (!made) throw new AppError("INTERNAL", "The default project vanished as it was made", { cause: error });
      return decodeJson(made.value, ProjectRecord);
    }
  }

  /** The id of the user's default project (`defaultFor` makes its record): what `default.<user>` names, claimed first if it names none. */
  async defaultId(user: string): Promise<string> {
    return this.defaults.get(user) ?? this.defaultPointer(user);
  }

  /** The id `default.<user>` names, claimed first if it names none, and kept. */
  private async defaultPointer(user: string): Promise<string> {
    const key = defaultKey(user);
    const entry = await readThroughFailover(() => this.kv.get(key));
    let id = entry?.operation === "PUT" ? decodeJson(entry.value, DefaultPointer).project_id : undefined;
    if (id === undefined) {
      const mine = randomUUID();
      const pointer = encodeJson({ project_id: mine });
      try {
        // a create that lands as its answer is lost is taken as this one's by writeThroughFailover
        await writeThroughFailover(this.kv, key, pointer, () => this.kv.create(key, pointer));
        id = mine;
      } catch (error) {
        if (!isCasConflict(error)) throw error;
        // not read back after a create of our own: a replica behind the new leader may not show it yet
        const theirs = await readExisting(this.kv, key);
        if (!theirs) throw new AppError("INTERNAL", "The default project's pointer vanished as it was made", { cause: error });
        id = decodeJson(theirs.value, DefaultPointer).project_id;
      }
    }
    if (this.defaults.size >= keptDefaults) this.defaults.delete(this.defaults.keys().next().value as string);
    this.defaults.set(user, id);
    return id;
  }

  /** The personal project of `user` if it was made (ProjectStore.defaultFor makes it). */
  async personalOf(user: string): Promise<ProjectRecord | undefined> {
    const entry = await readThroughFailover(() => this.kv.get(defaultKey(user)));
    if (!entry || entry.operation !== "PUT") return undefined;
    return (await this.get(decodeJson(entry.value, DefaultPointer).project_id))?.record;
  }

  /**
   * Every project `user` is a member of (owner, editor or viewer) but their own personal one: those the index
   * names, each read and checked against its record. Nobody else's projects are read.
   */
  async memberProjects(user: string): Promise<ProjectRecord[]> {
    const { owner, member } = await this.index.of(user);
    const records: ProjectRecord[] = [];
    for (const id of new Set([...owner, ...member])) {
      const stored = await this.get(id);
      if (stored && roleOf(stored.record, user) !== undefined) records.push(stored.record);
    }
    return records;
  }

  /** Every project: a scan of `project.*` that reads them all, for the index's migration at start (listings read the index). */
  async all(): Promise<ProjectRecord[]> {
    // collect the keys first: awaiting other KV calls while iterating cuts the key listing short
    const keys: string[] = [];
    for await (const key of await retryWhileLeaderless(() => this.kv.keys("project.*"))) keys.push(key);
    const records: ProjectRecord[] = [];
    for (const key of keys) {
      const entry = await readThroughFailover(() => this.kv.get(key));
      if (entry && entry.operation === "PUT") records.push(decodeJson(entry.value, ProjectRecord));
    }
    return records;
  }

  /** Indexes every tie of `record` (idempotent): the index's migration, for projects stored before it. */
  async indexTies(record: ProjectRecord): Promise<void> {
    if (!record.personal) await this.index.ensure(record.owner, "owner", record.id);
    for (const member of Object.keys(record.members)) await this.index.ensure(member, "member", record.id);
  }

  /**
   * Changes a project by compare-and-set: `change` gets the latest record and returns the new one (or throws an
   * AppError, which ends the change), and runs again on a fresh read if another writer got there first.
   * PROJECT_NOT_FOUND when the project does not exist. A member it adds is indexed before the write, one it
   * removes unindexed after (ProjectIndex).
   */
  async update(id: string, change: (record: ProjectRecord) => ProjectRecord): Promise<ProjectRecord> {
    return retryOnConflict(async () => {
      const stored = await this.get(id);
      if (!stored) throw projectNotFound();
      const next: ProjectRecord = { ...change(stored.record), updated_at: new Date().toISOString() };
      const added = Object.keys(next.members).filter((member) => !Object.hasOwn(stored.record.members, member));
      const removed = Object.keys(stored.record.members).filter((member) => !Object.hasOwn(next.members, member));
      for (const member of added) await this.index.add(member, "member", id);
      const revisions = new Map<string, number | undefined>();
      for (const member of removed) revisions.set(member, (await this.index.entry(member, "member", id))?.revision);
      await retryWhileLeaderless(() => this.kv.update(projectKey(id), encodeJson(next), stored.revision));
      for (const [member, revision] of revisions) {
        if (revision !== undefined) await this.index.remove(member, "member", id, revision);
      }
      return next;
    });
  }

  /**
   * Removes the record if it is still at `stored.revision` (a conflict, someone changed it meanwhile, is thrown as
   * it is), then its index keys.
   */
  async remove(stored: StoredProject): Promise<void> {
    const { record, revision } = stored;
    await retryWhileLeaderless(() => this.kv.purge(projectKey(record.id), { previousSeq: revision }));
    if (!record.personal) await this.index.remove(record.owner, "owner", record.id);
    for (const member of Object.keys(record.members)) await this.index.remove(member, "member", record.id);
  }
}

/** A missing project and one the caller is not a member of answer alike (docs/projects.md "What a project is"). */
export const projectNotFound = (): AppError => new AppError("PROJECT_NOT_FOUND", "Project not found");

function newRecord(id: string, owner: string, name: string, personal: boolean): ProjectRecord {
  const now = new Date().toISOString();
  return { id, name, owner, members: {}, personal, created_at: now, updated_at: now };
}
