import { AppError } from "@agent-orchestrator/shared";

/**
 * Admission of script runs in one process: at most `concurrency` at once, a few more waiting (parallel
 * subagents may each run a short script), the rest answered BUSY at once. Runs of one session go one after
 * the other: a script must not change the session folder while another run's sandbox is being set up from it.
 */
export class ScriptSlots {
  private running = 0;
  /** runs accepted and not yet ended: running, waiting for a slot, or waiting for their session's turn */
  private admitted = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly sessions = new Map<string, Promise<unknown>>();

  constructor(
    private readonly concurrency: number,
    private readonly maxWaiting = concurrency * 4,
  ) {}

  /** Runs `work` when a slot is free and the session's previous run has ended. */
  async run<T>(sessionId: string, work: () => Promise<T>): Promise<T> {
    if (this.admitted >= this.concurrency + this.maxWaiting) {
      throw new AppError("BUSY", "Too many scripts are running; try again shortly");
    }
    this.admitted++;
    const previous = this.sessions.get(sessionId) ?? Promise.resolve();
    const turn = previous.catch(() => undefined).then(() => this.withSlot(work));
    this.sessions.set(sessionId, turn);
    try {
      return await turn;
    } finally {
      this.admitted--;
      if (this.sessions.get(sessionId) === turn) this.sessions.delete(sessionId);
    }
  }

  private async withSlot<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      // the slot passes straight to the next waiter, so `running` counts it without a gap
      if (next) next();
      else this.running--;
    }
  }
}
