import type { KV, NatsConnection } from "nats";
import { AppError, decodeJson, encodeJson, mapWithConcurrency, retryWhileLeaderless } from "@agent-orchestrator/shared/runtime";
import { ApprovalRecord, type ApprovalStatus } from "@agent-orchestrator/shared/wire";
import { retryOnConflict } from "../nats/compare-and-set.js";

const recordKey = (sessionId: string, approvalId: string): string => `approval.${sessionId}.${approvalId}`;
const pendingKey = (record: Pick<ApprovalRecord, "project_id" | "session_id" | "approval_id">): string =>
  `pending.${record.project_id}.${record.session_id}.${record.approval_id}`;

/** One stored record and the revision a compare-and-set names. */
export interface StoredApproval {
  record: ApprovalRecord;
  revision: number;
}

/** What a transition did: `changed` false when the record was not in a state it may leave (decided already). */
export interface ApprovalTransition {
  changed: boolean;
  record: ApprovalRecord;
}

/** A pending mark without its record is left alone this long: its record may be on its way. */
const staleMarkMs = 60_000;
/** Records read at once when a listing reads many. */
const readConcurrency = 8;

/**
 * Tool calls waiting for a decision (docs/approvals.md "Where they live"), in the JetStream KV bucket `approvals`:
 * `approval.<session>.<approval>` holds the record, moved only by compare-and-set (so a decision sent twice, or two
 * replicas' sweeps, change it once), and `pending.<project>.<session>.<approval>` marks it as waiting, so a chat's and
 * a project's pending calls are each one key listing, and the sweep finds every call still waiting for a decision or
 * for its turn to resume. The mark goes when the turn resumes; one a crash left behind is ignored by every reader
 * (they read the record) and removed by the next sweep.
 */
export class ApprovalStore {
  private constructor(private readonly kv: KV) {}

  static async open(connection: NatsConnection, bucket: string): Promise<ApprovalStore> {
    return ApprovalStore.over(await connection.jetstream().views.kv(bucket, { history: 1 }));
  }

  /** The store over a bucket already bound (a test's scratch bucket). */
  static over(kv: KV): ApprovalStore {
    return new ApprovalStore(kv);
  }

  /** Stores a new pending call; its index key first, so a record is never pending without one. */
  async create(record: ApprovalRecord): Promise<void> {
    if (record.status !== "pending") throw new AppError("INTERNAL", "a new approval must be pending");
    const parsed = ApprovalRecord.parse(record);
    await retryWhileLeaderless(() => this.kv.put(pendingKey(parsed), encodeJson({ expires_at: parsed.expires_at })));
    await retryWhileLeaderless(() => this.kv.create(recordKey(parsed.session_id, parsed.approval_id), encodeJson(parsed)));
  }

  async get(sessionId: string, approvalId: string): Promise<StoredApproval | undefined> {
    const entry = await retryWhileLeaderless(() => this.kv.get(recordKey(sessionId, approvalId)));
    if (!entry || entry.operation !== "PUT" || entry.length === 0) return undefined;
    return { record: decodeJson(entry.value, ApprovalRecord), revision: entry.revision };
  }

  /**
   * Moves the record from one of `from` to what `change` makes of it, by compare-and-set (read again on a conflict).
   * A record in another state is returned unchanged; a missing one is APPROVAL_NOT_FOUND.
   */
  async transition(sessionId: string, approvalId: string, from: readonly ApprovalStatus[], change: (record: ApprovalRecord) => ApprovalRecord): Promise<ApprovalTransition> {
    const done = await retryOnConflict(async () => {
      const stored = await this.get(sessionId, approvalId);
      if (!stored) throw new AppError("APPROVAL_NOT_FOUND", "No such pending tool call in this chat");
      if (!from.includes(stored.record.status)) return { changed: false, record: stored.record };
      const next = ApprovalRecord.parse(change(stored.record));
      await retryWhileLeaderless(() => this.kv.update(recordKey(sessionId, approvalId), encodeJson(next), stored.revision));
      return { changed: true, record: next };
    });
    if (done.changed && done.record.status === "resumed") await this.unindex(done.record);
    return done;
  }

  /** The chat's calls still pending, oldest first. */
  async pendingOfSession(sessionId: string): Promise<ApprovalRecord[]> {
    const keys = await this.keys(recordKey(sessionId, "*"));
    const records = await this.readAll(keys.map((key) => key.slice(key.lastIndexOf(".") + 1)).map((approvalId) => ({ sessionId, approvalId })));
    return oldestFirst(records.filter((record) => record.status === "pending"));
  }

  /** The project's calls still pending, oldest first. */
  async pendingOfProject(projectId: string): Promise<ApprovalRecord[]> {
    const keys = await this.keys(`pending.${projectId}.*.*`);
    const ids = keys.map((key) => {
      const [, , sessionId = "", approvalId = ""] = key.split(".");
      return { sessionId, approvalId };
    });
    return oldestFirst((await this.readAll(ids)).filter((record) => record.status === "pending"));
  }

  /**
   * Every call still waiting, in every project: for a decision, or decided and waiting for its turn to resume (the
   * sweep's listing); marks of resumed calls, and marks a crash left without a record, are dropped on the way.
   */
  async allWaiting(): Promise<ApprovalRecord[]> {
    const keys = await this.keys("pending.*.*.*");
    const found = await mapWithConcurrency(keys, readConcurrency, async (key) => {
      const [, , sessionId = "", approvalId = ""] = key.split(".");
      const stored = await this.get(sessionId, approvalId);
      if (stored && stored.record.status !== "resumed") return stored.record;
      // a mark a crash left behind after its record moved on, or before its record was made (then only once it is
      // older than any create in progress)
      if (stored || (await this.markOlderThan(key, staleMarkMs))) await retryWhileLeaderless(() => this.kv.delete(key));
      return undefined;
    });
    return oldestFirst(found.filter((record): record is ApprovalRecord => record !== undefined));
  }

  /**
   * Purges the records of calls whose turn resumed before `before` (a week ago: until then a decision sent again is
   * told who decided); returns how many. Reads every record key, so the sweep does it seldom.
   */
  async purgeResumed(before: Date): Promise<number> {
    const keys = await this.keys("approval.*.*");
    const purged = await mapWithConcurrency(keys, readConcurrency, async (key) => {
      const [, sessionId = "", approvalId = ""] = key.split(".");
      const stored = await this.get(sessionId, approvalId);
      const endedAt = stored?.record.decided?.at;
      if (stored?.record.status !== "resumed" || endedAt === undefined || Date.parse(endedAt) >= before.getTime()) return false;
      await this.forget(stored.record);
      return true;
    });
    return purged.filter(Boolean).length;
  }

  /**
   * Removes every call of a chat that is gone (docs/approvals.md "Deleting a chat or a project"): its records, waiting
   * or decided, and its marks in `projectId`, a crash's leftovers included; returns how many calls went.
   */
  async forgetChat(projectId: string, sessionId: string): Promise<number> {
    const ids = (await this.keys(recordKey(sessionId, "*"))).map((key) => ({ sessionId, approvalId: key.slice(key.lastIndexOf(".") + 1) }));
    const records = await this.readAll(ids);
    await mapWithConcurrency(records, readConcurrency, (record) => this.forget(record));
    const marks = await this.keys(`pending.${projectId}.${sessionId}.*`);
    await mapWithConcurrency(marks, readConcurrency, (key) => retryWhileLeaderless(() => this.kv.delete(key)));
    return records.length;
  }

  /** Removes a record for good (its chat is gone, or its turn resumed long ago). */
  async forget(record: ApprovalRecord): Promise<void> {
    await this.unindex(record);
    await retryWhileLeaderless(() => this.kv.purge(recordKey(record.session_id, record.approval_id)));
  }

  private async unindex(record: ApprovalRecord): Promise<void> {
    await retryWhileLeaderless(() => this.kv.delete(pendingKey(record)));
  }

  private async markOlderThan(key: string, ageMs: number): Promise<boolean> {
    const entry = await retryWhileLeaderless(() => this.kv.get(key));
    return entry !== null && entry.operation === "PUT" && Date.now() - entry.created.getTime() > ageMs;
  }

  private async keys(filter: string): Promise<string[]> {
    const keys: string[] = [];
    for await (const key of await retryWhileLeaderless(() => this.kv.keys(filter))) keys.push(key);
    return keys;
  }

  private async readAll(ids: readonly { sessionId: string; approvalId: string }[]): Promise<ApprovalRecord[]> {
    const found = await mapWithConcurrency(ids, readConcurrency, async ({ sessionId, approvalId }) => (await this.get(sessionId, approvalId))?.record);
    return found.filter((record): record is ApprovalRecord => record !== undefined);
  }
}

const oldestFirst = (records: ApprovalRecord[]): ApprovalRecord[] => records.sort((a, b) => a.created_at.localeCompare(b.created_at));
