import { randomUUID } from "node:crypto";
import type { KV, NatsConnection } from "nats";
import { AppError, decodeJson, encodeJson, isCasConflict, ProjectRecord, retryWhileLeaderless } from "@agent-orchestrator/shared";
import { z } from "zod";
import { retryOnConflict } from "../nats/compare-and-set.js";

/** The name a user's personal default project gets when it is made. */
const personalProjectName = "Personal";

const projectKey = (id: string): string => `project.${id}`;
/** User names may hold characters KV keys do not allow (`@`, spaces, …): the key holds them base64url-encoded. */
const defaultKey = (user: string): string => `default.${Buffer.from(user, "utf8").toString("base64url")}`;
const DefaultPointer = z.object({ project_id: z.string() });

/** A project as read, with the revision a compare-and-set write must name. */
export interface StoredProject {
  record: ProjectRecord;
  revision: number;
}

/**
 * Projects in the JetStream KV bucket `projects` (docs/projects.md "Storage"): `project.<id>` holds the
 * ProjectRecord, `default.<user, base64url>` the id of the user's personal default project. Every change is a
 * compare-and-set on the record's revision, made again from a fresh read when another writer (a second request, a
 * second replica) got there first, so no change is lost. There is no per-user index: listing a user's projects
 * scans every `project.*` key and keeps those they are a member of, which is fine for the few thousand projects
 * one deployment holds.
 */
export class ProjectStore {
  private constructor(private readonly kv: KV) {}

  static async open(connection: NatsConnection, bucket: string): Promise<ProjectStore> {
    return new ProjectStore(await connection.jetstream().views.kv(bucket, { history: 1 }));
  }

  /** A new (not personal) project owned by `owner`. */
  async create(owner: string, name: string): Promise<ProjectRecord> {
    const record = newRecord(randomUUID(), owner, name, false);
    await retryWhileLeaderless(() => this.kv.create(projectKey(record.id), encodeJson(record)));
    return record;
  }

  async get(id: string): Promise<StoredProject | undefined> {
    const entry = await retryWhileLeaderless(() => this.kv.get(projectKey(id)));
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
    const key = defaultKey(user);
    let entry = await retryWhileLeaderless(() => this.kv.get(key));
    if (!entry || entry.operation !== "PUT") {
      try {
        await retryWhileLeaderless(() => this.kv.create(key, encodeJson({ project_id: randomUUID() })));
      } catch (error) {
        if (!isCasConflict(error)) throw error;
      }
      entry = await retryWhileLeaderless(() => this.kv.get(key));
      if (!entry || entry.operation !== "PUT") throw new AppError("INTERNAL", "The default project's pointer vanished as it was made");
    }
    const { project_id: id } = decodeJson(entry.value, DefaultPointer);
    const stored = await this.get(id);
    if (stored) return stored.record;
    const record = newRecord(id, user, personalProjectName, true);
    try {
      await retryWhileLeaderless(() => this.kv.create(projectKey(id), encodeJson(record)));
      return record;
    } catch (error) {
      if (!isCasConflict(error)) throw error;
      const made = await this.get(id);
      if (!made) throw new AppError("INTERNAL", "The default project vanished as it was made", { cause: error });
      return made.record;
    }
  }

  /** Every project (a scan of `project.*`; see the class comment). */
  async all(): Promise<ProjectRecord[]> {
    // collect the keys first: awaiting other KV calls while iterating cuts the key listing short
    const keys: string[] = [];
    for await (const key of await retryWhileLeaderless(() => this.kv.keys("project.*"))) keys.push(key);
    const records: ProjectRecord[] = [];
    for (const key of keys) {
      const entry = await retryWhileLeaderless(() => this.kv.get(key));
      if (entry && entry.operation === "PUT") records.push(decodeJson(entry.value, ProjectRecord));
    }
    return records;
  }

  /**
   * Changes a project by compare-and-set: `change` gets the latest record and returns the new one (or throws an
   * AppError, which ends the change), and runs again on a fresh read if another writer got there first.
   * PROJECT_NOT_FOUND when the project does not exist.
   */
  async update(id: string, change: (record: ProjectRecord) => ProjectRecord): Promise<ProjectRecord> {
    return retryOnConflict(async () => {
      const stored = await this.get(id);
      if (!stored) throw projectNotFound();
      const next: ProjectRecord = { ...change(stored.record), updated_at: new Date().toISOString() };
      await retryWhileLeaderless(() => this.kv.update(projectKey(id), encodeJson(next), stored.revision));
      return next;
    });
  }

  /** Removes the record if it is still at `revision`; a conflict (someone changed it meanwhile) is thrown as it is. */
  async remove(id: string, revision: number): Promise<void> {
    await retryWhileLeaderless(() => this.kv.purge(projectKey(id), { previousSeq: revision }));
  }
}

/** A missing project and one the caller is not a member of answer alike (docs/projects.md "What a project is"). */
export const projectNotFound = (): AppError => new AppError("PROJECT_NOT_FOUND", "Project not found");

function newRecord(id: string, owner: string, name: string, personal: boolean): ProjectRecord {
  const now = new Date().toISOString();
  return { id, name, owner, members: {}, personal, created_at: now, updated_at: now };
}
