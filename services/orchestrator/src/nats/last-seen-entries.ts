import type { KV } from "nats";
import { encodeJson, retryWhileLeaderless } from "@agent-orchestrator/shared/runtime";

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

  /** Writes `value` by compare-and-set over `over`'s revision (creates the key when there is none), and remembers it. */
  async write(key: string, over: { revision: number } | undefined, value: T): Promise<void> {
    const encoded = encodeJson(value);
    try {
      const revision = await retryWhileLeaderless(() => (over ? this.kv.update(key, encoded, over.revision) : this.kv.create(key, encoded)));
      this.remember(key, { value, revision });
    } catch (error) {
      // refused, or perhaps written: the next change reads the key as it is
      this.entries.delete(key);
      throw error;
    }
  }
}
