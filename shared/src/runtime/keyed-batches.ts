/**
 * Group commit by key: items given under one key while that key's write is under way wait and go together in its
 * next write, so a process's writers of one compare-and-set key make one write per round trip instead of one each
 * (KeyedQueue runs them one after the other). An item given while its key is idle starts a write at the next
 * microtask, with whatever else was given in the same synchronous run: nothing waits for a timer. Writes of other
 * keys run alongside. A key is forgotten once it has nothing to write.
 */
export class KeyedBatches<Item, Result> {
  /** each key being written, with what waits for its next write */
  private readonly keys = new Map<string, Array<Waiting<Item, Result>>>();

  /** `write` writes a batch of one key's items, in the order given, and answers each item's result in that order. */
  constructor(private readonly write: (key: string, items: Item[]) => Promise<Result[]>) {}

  run(key: string, item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      const waiting = { item, resolve, reject };
      const writing = this.keys.get(key);
      if (writing) {
        writing.push(waiting);
        return;
      }
      const next = [waiting];
      this.keys.set(key, next);
      queueMicrotask(() => void this.writeAll(key, next));
    });
  }

  /** Writes what waits under `key`, batch after batch, until nothing does. */
  private async writeAll(key: string, waiting: Array<Waiting<Item, Result>>): Promise<void> {
    for (let batch = waiting; batch.length > 0; ) {
      const next: Array<Waiting<Item, Result>> = [];
      this.keys.set(key, next);
      try {
        const results = await this.write(key, batch.map(({ item }) => item));
        batch.forEach(({ resolve }, index) => resolve(results[index] as Result));
      } catch (error) {
        for (const { reject } of batch) reject(error);
      }
      batch = next;
    }
    this.keys.delete(key);
  }
}

interface Waiting<Item, Result> {
  item: Item;
  resolve: (result: Result) => void;
  reject: (error: unknown) => void;
}
