import type { KV } from "nats";
import { AppError, decodeJson } from "@agent-orchestrator/shared/runtime";
import { SessionRecord } from "@agent-orchestrator/shared/wire";
import { readThroughFailover } from "../nats/kv-failover.js";
import type { OlderSessionShapes, SessionStore, SessionVersion } from "../sessions/session-store.js";

/*
 * Sessions in the shape from before heads and conversation batches: one KV value per session, the whole
 * `SessionRecord` under the session's id (the only keys of the `sessions` bucket with a single token). The store
 * reads one where it finds no head (`oneValueSessions`), and its next save writes the head and removes the old
 * key; `moveOneValueSessions` moves them all at every start. It also moves what an orchestrator of an older
 * version wrote during a rolling upgrade, once a replica of this version starts after the last older one stopped.
 * It can go, with SessionStore's `olderShapes` and a version's `replaces`, in the release after every deployment
 * has started a version with heads once with no older replica running.
 */

/** A session read in the one-value shape: no head yet, so its save creates one and removes the key `key`. */
const oneValueVersion = (key: string): SessionVersion => ({ revision: 0, batches: [], title: "", replaces: key });

/** The session store's reader of one-value sessions (SessionStore.open's `olderShapes`). */
export const oneValueSessions: OlderSessionShapes = {
  async find(bucket, id, owner) {
    const entry = await readThroughFailover(() => bucket.get(id));
    if (!entry || entry.operation !== "PUT") return undefined;
    const record = decodeJson(entry.value, SessionRecord);
    if (record.owner !== owner) return undefined;
    return { record, version: oneValueVersion(id) };
  },
};

/**
 * Moves every session of `bucket` still in the one-value shape to a head and a batch through `sessions` (run at
 * start). One another orchestrator moved first is left to it. Returns how many this replica moved.
 */
export async function moveOneValueSessions(bucket: KV, sessions: SessionStore): Promise<number> {
  const keys: string[] = [];
  for await (const key of await bucket.keys("*")) keys.push(key);
  let moved = 0;
  for (const key of keys) {
    const entry = await readThroughFailover(() => bucket.get(key));
    if (!entry || entry.operation !== "PUT") continue;
    const record = decodeJson(entry.value, SessionRecord);
    try {
      await sessions.update(record, oneValueVersion(key), { updatedAt: record.updated_at });
      moved++;
    } catch (error) {
      if (!AppError.is(error) || error.code !== "SESSION_BUSY") throw error;
      await bucket.delete(key);
    }
  }
  return moved;
}
