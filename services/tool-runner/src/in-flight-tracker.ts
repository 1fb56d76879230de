/** Counts work under way, so a stopping service can wait for it (docs/security.md case 70). */
export class InFlightTracker {
  private count = 0;
  private waiters: Array<() => void> = [];

  /** How many tracked promises have not settled. */
  get size(): number {
    return this.count;
  }

  /** Tracks `work` until it settles; returns it unchanged. */
  track<T>(work: Promise<T>): Promise<T> {
    this.count++;
    const done = () => {
      this.count--;
      if (this.count === 0) for (const wake of this.waiters.splice(0)) wake();
    };
    work.then(done, done);
    return work;
  }

  /** Resolves when nothing is in flight. */
  whenIdle(): Promise<void> {
    return this.count === 0 ? Promise.resolve() : new Promise((resolve) => this.waiters.push(resolve));
  }
}
