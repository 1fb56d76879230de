import type { KV, NatsConnection } from "nats";
import { AppError, decodeJson, encodeJson, SessionRecord, zeroUsage } from "@agent-orchestrator/shared";

/**
 * Sessions in the JetStream KV bucket `sessions`: they survive any orchestrator process and any replica
 * can serve the next turn. Every write is a compare-and-set on the revision that was read.
 */
export class SessionStore {
  private constructor(private readonly kv: KV) {}

  static async open(connection: NatsConnection, bucket: string): Promise<SessionStore> {
    const kv = await connection.jetstream().views.kv(bucket, { history: 1 });
    return new SessionStore(kv);
  }

  /**
   * Creates a new session with its first turn already running, in one KV operation. Returns undefined if
   * the id is taken (a redelivered turn finds its session that way).
   */
  async createRunning(input: { id: string; agentId: string; owner: string; runId: string }): Promise<{ record: SessionRecord; revision: number } | undefined> {
    const now = new Date().toISOString();
    const record: SessionRecord = {
      id: input.id,
      agent_id: input.agentId,
      owner: input.owner,
      status: "running",
      run_id: input.runId,
      run_started_at: now,
      last_run_id: input.runId,
      messages: [],
      usage: zeroUsage(),
      turns: 0,
      created_at: now,
      updated_at: now,
    };
    try {
      return { record, revision: await this.kv.create(input.id, encodeJson(record)) };
    } catch (error) {
      if (await this.kv.get(input.id)) return undefined;
      throw error;
    }
  }

  async get(id: string): Promise<{ record: SessionRecord; revision: number } | undefined> {
    const entry = await this.kv.get(id);
    if (!entry || entry.operation !== "PUT") return undefined;
    return { record: decodeJson(entry.value, SessionRecord), revision: entry.revision };
  }

  /** Every session of one owner, newest first (a full scan: fine for thousands, not millions). */
  async listByOwner(owner: string, limit = 200): Promise<SessionRecord[]> {
    // collect the keys first: awaiting other KV calls while iterating cuts the key listing short
    const keys: string[] = [];
    for await (const key of await this.kv.keys()) keys.push(key);
    const records: SessionRecord[] = [];
    for (const key of keys) {
      const stored = await this.get(key);
      if (stored && stored.record.owner === owner) records.push(stored.record);
    }
    return records.sort((a, b) => b.created_at.localeCompare(a.created_at)).slice(0, limit);
  }

  /** Writes `record` only if the stored revision is still `revision`; returns the new revision. */
  async update(record: SessionRecord, revision: number): Promise<number> {
    const next = { ...record, updated_at: new Date().toISOString() };
    try {
      return await this.kv.update(record.id, encodeJson(next), revision);
    } catch (error) {
      throw new AppError("SESSION_BUSY", "The session was changed by another turn", { cause: error });
    }
  }
}
