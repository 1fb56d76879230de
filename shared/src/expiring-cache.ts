interface Entry<V> {
  value: Promise<V>;
  loadedAt: number;
}

/**
 * Values loaded once per key and kept for at most `maxAgeMs` from their load. Callers asking while a load is
 * under way share it. A failed load is never kept, and `clear()` forgets everything, loads under way included:
 * their callers get their answer, the next caller loads again. Not lru-cache's `fetch` (used for the bounded
 * caches): it keeps an entry whose age equals its ttl and never expires one stored at an injected clock's zero.
 */
export class ExpiringCache<V> {
  readonly #entries = new Map<string, Entry<V>>();

  constructor(
    private readonly maxAgeMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  get(key: string, load: () => Promise<V>): Promise<V> {
    const kept = this.#entries.get(key);
    if (kept && this.now() - kept.loadedAt < this.maxAgeMs) return kept.value;
    const entry: Entry<V> = { value: load(), loadedAt: this.now() };
    this.#entries.set(key, entry);
    entry.value.catch(() => {
      if (this.#entries.get(key) === entry) this.#entries.delete(key);
    });
    return entry.value;
  }

  clear(): void {
    this.#entries.clear();
  }
}
