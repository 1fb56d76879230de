import type { KV } from "nats";
import { isCasConflict, retryWhileLeaderless } from "@agent-orchestrator/shared/runtime";

/** How a user is tied to a project in the index: they made it, or its owner added them. */
export type IndexedTie = "owner" | "member";

/** User names may hold characters KV keys do not allow (`@`, spaces, …): the key holds them base64url-encoded. */
const userPrefix = (user: string): string => `user.${Buffer.from(user, "utf8").toString("base64url")}`;
const tieKey = (user: string, tie: IndexedTie, projectId: string): string => `${userPrefix(user)}.${tie}.${projectId}`;
const noValue = new Uint8Array(0);

/**
 * Which projects a user is tied to, in the `projects` bucket beside the records (docs/projects.md "Storage"): one
 * empty key `user.<user, base64url>.<owner|member>.<project>` per tie, so a user's projects are found by listing the
 * keys under their own prefix (one subject filter, answered by the server) and never by reading anyone else's.
 * The keys only say where to look: the record stays the truth, and every reader checks it. So the index may hold
 * more than the truth (a write that failed half-way leaves a key whose record no longer names the user, read and
 * skipped), never less: a tie is indexed before the record gains it and unindexed after the record lost it.
 * A user's own personal project is not indexed (its pointer `default.<user>` finds it).
 */
export class ProjectIndex {
  constructor(private readonly kv: KV) {}

  /** Indexes the tie; idempotent. */
  async add(user: string, tie: IndexedTie, projectId: string): Promise<void> {
    await retryWhileLeaderless(() => this.kv.put(tieKey(user, tie, projectId), noValue));
  }

  /** Indexes the tie unless it is indexed already (the key is left as it is, its revision too); idempotent. */
  async ensure(user: string, tie: IndexedTie, projectId: string): Promise<void> {
    try {
      await retryWhileLeaderless(() => this.kv.create(tieKey(user, tie, projectId), noValue));
    } catch (error) {
      if (!isCasConflict(error)) throw error;
    }
  }

  /**
   * The tie's key as stored (undefined when not indexed): its revision, for a `remove` that must not undo a later
   * `add`, and when the server wrote it.
   */
  async entry(user: string, tie: IndexedTie, projectId: string): Promise<{ revision: number; created: Date } | undefined> {
    const entry = await retryWhileLeaderless(() => this.kv.get(tieKey(user, tie, projectId)));
    return entry && entry.operation === "PUT" ? { revision: entry.revision, created: entry.created } : undefined;
  }

  /**
   * Unindexes the tie; idempotent. With `revision`, only while the key is still at it: a key indexed again since
   * (a member added back while being removed) is kept, as the index may hold more than the truth, never less.
   */
  async remove(user: string, tie: IndexedTie, projectId: string, revision?: number): Promise<void> {
    try {
      await retryWhileLeaderless(() => this.kv.purge(tieKey(user, tie, projectId), revision === undefined ? undefined : { previousSeq: revision }));
    } catch (error) {
      if (!isCasConflict(error)) throw error;
    }
  }

  /** The ids of the projects `user` is indexed under, by tie. */
  async of(user: string): Promise<Record<IndexedTie, string[]>> {
    const ties: Record<IndexedTie, string[]> = { owner: [], member: [] };
    const prefix = userPrefix(user);
    // collect the keys first: awaiting other KV calls while iterating cuts the key listing short
    const keys: string[] = [];
    for await (const key of await retryWhileLeaderless(() => this.kv.keys(`${prefix}.>`))) keys.push(key);
    for (const key of keys) {
      const [tie, projectId] = key.slice(prefix.length + 1).split(".");
      if ((tie === "owner" || tie === "member") && projectId) ties[tie].push(projectId);
    }
    return ties;
  }
}
