import type { ToolResult } from "@agent-orchestrator/shared";
import { jsonBytes } from "./tools/reply-budget.js";

interface Entry {
  fingerprint: string;
  result: Promise<ToolResult>;
  bytes: number;
}

/** Bounds of the idempotency cache. */
export interface IdempotencyCacheOptions {
  maxEntries: number;
  /** completed results are kept up to this many bytes in all */
  maxBytes: number;
}

/**
 * Tool results by `call_id` (docs/nats.md "Connection and limits": the idempotency key). A call in flight is
 * shared with its retries; a successful result is kept, least recently used out first, so a retried write
 * is answered from here and not executed again. Failures are forgotten: retrying them is the point.
 */
export class IdempotencyCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(private readonly options: IdempotencyCacheOptions) {}

  /** The entry for `key`, marked as recently used. */
  lookup(key: string): { fingerprint: string; result: Promise<ToolResult> } | undefined {
    const entry = this.entries.get(key);
    if (entry) {
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    return entry;
  }

  /** Remembers a call from its start; `fingerprint` tells a retry from a different call reusing the key. */
  remember(key: string, fingerprint: string, result: Promise<ToolResult>): void {
    const entry: Entry = { fingerprint, result, bytes: 0 };
    this.entries.set(key, entry);
    void result.then((value) => {
      if (this.entries.get(key) !== entry) return;
      if (!value.success) {
        this.entries.delete(key);
        return;
      }
      entry.bytes = jsonBytes(value);
      this.bytes += entry.bytes;
      this.evict();
    });
    this.evict();
  }

  /** Entries held, in flight or done. */
  get size(): number {
    return this.entries.size;
  }

  private evict(): void {
    for (const [key, entry] of this.entries) {
      if (this.entries.size <= this.options.maxEntries && this.bytes <= this.options.maxBytes) return;
      this.entries.delete(key);
      this.bytes -= entry.bytes;
    }
  }
}
