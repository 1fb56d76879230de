/**
 * At most `limit` holders per key at once (per gateway replica): the counter behind every cap on things
 * held open, WebSocket connections and watches. A key's count is dropped when it reaches zero, so the map
 * holds only keys that hold something.
 */
export class KeyedSlots {
  private readonly held = new Map<string, number>();

  constructor(readonly limit: number) {}

  /** A slot of `key`, given back by calling the result (only the first call counts); undefined when all `limit` are held. */
  take(key: string): (() => void) | undefined {
    const count = this.held.get(key) ?? 0;
    if (count >= this.limit) return undefined;
    this.held.set(key, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.held.get(key) ?? 1) - 1;
      if (left <= 0) this.held.delete(key);
      else this.held.set(key, left);
    };
  }

  /** Slots `key` holds now. */
  count(key: string): number {
    return this.held.get(key) ?? 0;
  }
}
