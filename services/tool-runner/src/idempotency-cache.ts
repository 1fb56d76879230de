import { LRUCache } from "lru-cache";
import type { ToolResult } from "@agent-orchestrator/shared/wire";

interface Entry {
  fingerprint: string;
  result: Promise<ToolResult>;
  /** the completed result's size; 0 while the call runs */
  bytes: number;
}

/** Bounds of the idempotency cache. */
export interface IdempotencyCacheOptions {
  maxEntries: number;
  /** completed results are kept up to about this many bytes in all (see retainedSize) */
  maxBytes: number;
}

/**
 * Tool results by `call_id` (docs/nats.md "Connection and limits": the idempotency key), in this process. A call
 * in flight is shared with its retries; a successful result is kept, least recently used out first (lru-cache,
 * bounded by count and bytes), so a retried write is answered from here and not executed again. Failures are
 * forgotten: retrying them is the point. Another replica's retries are answered from the session's call
 * records (call-records.ts).
 */
export class IdempotencyCache {
  private readonly entries: LRUCache<string, Entry>;

  constructor(options: IdempotencyCacheOptions) {
    // a running call counts as one byte, so a flood of calls in flight is bounded by the count
    this.entries = new LRUCache<string, Entry>({ max: options.maxEntries, maxSize: options.maxBytes, sizeCalculation: (entry) => Math.max(1, entry.bytes) });
  }

  /**
   * The answer to the call named `key`: a retry shares the original's (in flight or kept), a different call reusing
   * the key is refused, and a new call is `run` and remembered from its start.
   */
  once(key: string, fingerprint: string, run: () => Promise<ToolResult>): Promise<ToolResult> {
    const known = this.lookup(key);
    if (known) {
      if (known.fingerprint === fingerprint) return known.result;
      return Promise.resolve({ success: false, error: { code: "BAD_REQUEST", message: `call_id ${key} was already used for a different call` } });
    }
    const result = run();
    this.remember(key, fingerprint, result);
    return result;
  }

  /** The entry for `key`, marked as recently used. */
  lookup(key: string): { fingerprint: string; result: Promise<ToolResult> } | undefined {
    return this.entries.get(key);
  }

  /** Remembers a call from its start; `fingerprint` tells a retry from a different call reusing the key. */
  remember(key: string, fingerprint: string, result: Promise<ToolResult>): void {
    this.entries.set(key, { fingerprint, result, bytes: 0 });
    void result.then((value) => {
      if (this.entries.peek(key)?.result !== result) return;
      if (!value.success) {
        this.entries.delete(key);
        return;
      }
      // set again with its size: a result larger than the whole budget is simply not kept
      this.entries.set(key, { fingerprint, result, bytes: retainedSize(value) });
    });
  }

  /** Entries held, in flight or done. */
  get size(): number {
    return this.entries.size;
  }
}

/**
 * About the memory a result holds, without encoding it once more (the endpoint encodes it to reply, and the
 * tools have measured it against the reply budget): its strings' lengths, since a string keeps one or two bytes
 * a character, plus 8 bytes for every other value and container.
 */
function retainedSize(value: unknown): number {
  if (typeof value === "string") return value.length;
  if (Array.isArray(value)) return value.reduce((size: number, item: unknown) => size + retainedSize(item), 8);
  if (value !== null && typeof value === "object") {
    let size = 8;
    for (const [key, item] of Object.entries(value)) size += key.length + retainedSize(item);
    return size;
  }
  return 8;
}
