import { setTimeout as sleep } from "node:timers/promises";
import type { KV, KvEntry } from "nats";
import { isCasConflict, leaderElectionWaitMs, natsFailureKind, retryNats } from "@agent-orchestrator/shared/runtime";

/**
 * A KV read tried again while its stream has no leader, and when no answer came in time: a request sent through a
 * server as it dies (kill -9) is never answered, and a read repeated changes nothing (docs/nats.md "Failures and
 * retries").
 */
export function readThroughFailover<T>(read: () => Promise<T>): Promise<T> {
  return retryNats(read, { retryOn: ["no-responders", "no-leader", "timeout"], budgetMs: leaderElectionWaitMs });
}

/**
 * A KV write (`write`: a put, a create or a compare-and-set of `value` at `key`) tried again while the stream has no
 * leader and when no answer came in time. A write that timed out may have landed; its repeat then finds the key
 * changed (a lost compare-and-set), and a key holding exactly `value` is taken as this write's own first try: its
 * revision is returned. Any other lost compare-and-set is thrown as it is. So it suits values whose equal bytes from
 * another writer would be the same write: a session's head carries the time it was written to the millisecond, a
 * chat's pointer only its owner and project.
 */
export async function writeThroughFailover(kv: KV, key: string, value: Uint8Array, write: () => Promise<number>): Promise<number> {
  let timedOut = false;
  return retryNats(
    async () => {
      try {
        return await write();
      } catch (error) {
        if (timedOut && isCasConflict(error)) {
          const entry = await kv.get(key);
          if (entry?.operation === "PUT" && Buffer.from(entry.value).equals(value)) return entry.revision;
        }
        if (natsFailureKind(error) === "timeout") timedOut = true;
        throw error;
      }
    },
    { retryOn: ["no-responders", "no-leader", "timeout"], budgetMs: leaderElectionWaitMs },
  );
}

/**
 * A key the server has just said holds a value (a create refused because another caller's landed first), read until
 * it shows. A read is a direct get, which any replica may answer: one that has not caught up since a leader change
 * finds nothing for a moment (docs/nats.md "Failures and retries"). Undefined only if it never shows within the
 * leader-election budget.
 */
export async function readExisting(kv: KV, key: string): Promise<KvEntry | undefined> {
  const deadline = Date.now() + leaderElectionWaitMs;
  for (;;) {
    const entry = await readThroughFailover(() => kv.get(key));
    if (entry?.operation === "PUT") return entry;
    if (Date.now() > deadline) return undefined;
    await sleep(50);
  }
}
