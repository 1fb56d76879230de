import type { KV } from "nats";
import { encodeJson, isCasConflict, retryWhileLeaderless } from "@agent-orchestrator/shared/runtime";
import { retryOnConflict } from "./compare-and-set.js";

/** A KV entry as this process last read or wrote it. */
export interface SeenEntry<T> {
  value: T;
  revision: number;
}

/**
 * The entries of compare-and-set keys this process last read or wrote (the `capacity` most recent keys), so that its
 * next change of a key is written over what it saw, without a read first: one round trip while no other writer wrote
 * the key since. A write that is refused, or whose answer is lost, forgets the key's entry: the change is then made
 * again from a fresh read (spending-store.ts, user-turn-slots.ts).
 */
export class LastSeenEntries<T> {
  /** oldest first */
  private readonly entries = new Map<string, SeenEntry<T>>();

  constructor(
    private readonly kv: KV,
    private readonly capacity: number,
  ) {}

  get(key: string): SeenEntry<T> | undefined {
    return this.entries.get(key);
  }

  remember(key: string, entry: SeenEntry<T>): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
  }

  forget(key: string): void {
    this.entries.delete(key);
  }

  /**
   * Makes a change of `key` (`attempt`: a compare-and-set from what the key holds) first over the entry last seen
   * here, without a read; from a fresh `read` when none was seen, when another writer wrote the key since (the write
   * refused), or when `settled` says the answer may only be given from the key as it is now.
   */
  async change<R>(key: string, read: () => Promise<SeenEntry<T> | undefined>, attempt: (stored: SeenEntry<T> | undefined) => Promise<R>, settled: (answer: R) => boolean = () => true): Promise<R> {
    const seen = this.entries.get(key);
    if (seen) {
      try {
        const answer = await attempt(seen);
        if (settled(answer)) return answer;
      } catch (error) {
        if (!isCasConflict(error)) throw error;
      }
    }
    // each round another writer wins is tried again from a fresh read, after a short random pause
    return retryOnConflict(async () => attempt(await read()));
  }

  /** Writes `value` by compare-and-set over `over`'s revision (creates the key when there is none), and remembers it. */
  async write(key: string, over: { revision: number } | undefined, value: T): Promise<void> {
    const encoded = encodeJson(value);
    try {
      const revision = await retryWhileLeaderless(() => (over ? this.kv.update(key, encoded, over.revision) : this.kv.create(key, encoded)));
      this.remember(key, { value, revision });
    } catch (error) {
      // refused, or perhaps written: the next change reads the key as it is
      this.forget(key);
      throw error;
    }
  }
}
