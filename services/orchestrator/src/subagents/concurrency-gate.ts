/**
 * At most `limit` holders at a time; the others wait in order. A waiter whose signal aborts leaves the
 * line with the signal's reason, so a cancelled turn never waits for a place it no longer needs.
 */
export class ConcurrencyGate {
  private holders = 0;
  private readonly line: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  /** Resolves with the function that gives the place back, once a place is free. */
  async enter(signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) throw signal.reason;
    if (this.holders >= this.limit) {
      await new Promise<void>((resolve, reject) => {
        const turn = () => {
          signal.removeEventListener("abort", leave);
          resolve();
        };
        const leave = () => {
          this.line.splice(this.line.indexOf(turn), 1);
          reject(signal.reason as Error);
        };
        signal.addEventListener("abort", leave, { once: true });
        this.line.push(turn);
      });
    } else {
      this.holders++;
    }
    let given = false;
    return () => {
      if (given) return;
      given = true;
      // the place passes straight to the next in line, so the count stays right
      const next = this.line.shift();
      if (next) next();
      else this.holders--;
    };
  }
}
