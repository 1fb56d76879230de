/**
 * Runs the work given under one key in this process in order, one at a time (work under other keys runs
 * alongside): a process's own writers of one compare-and-set key then queue instead of colliding, and only
 * other replicas' writes can make them try again. A key is forgotten once its queue is empty.
 */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const result = (this.tails.get(key) ?? Promise.resolve()).then(work);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}
