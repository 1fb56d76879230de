import { AppError } from "@agent-orchestrator/shared/runtime";

/**
 * Admission of sandboxed runs (scripts, commands) in one process: at most `concurrency` at once, a few more waiting
 * (parallel subagents may each run a short script), the rest answered BUSY at once. One user may have at most
 * `perUser` runs admitted, so one user's load waits on their own runs and never fills the slots others need.
 * Runs of one session go one after the other. Each running run holds a numbered slot (0 … concurrency - 1):
 * a root tool-runner gives each slot its own host user, so kernel limits per user are limits per sandbox.
 */
export class SandboxSlots {
  /** runs accepted and not yet ended: running, waiting for a slot, or waiting for their session's turn */
  private admitted = 0;
  private readonly free: number[];
  private readonly waiting: Array<(slot: number) => void> = [];
  private readonly sessions = new Map<string, Promise<unknown>>();
  private readonly users = new Map<string, number>();

  constructor(
    /** what runs, for messages: `script`, `command` */
    private readonly noun: string,
    private readonly concurrency: number,
    private readonly perUser = concurrency,
    private readonly maxWaiting = concurrency * 4,
  ) {
    this.free = Array.from({ length: concurrency }, (_, slot) => slot);
  }

  /** Runs `work` with a slot number when a slot is free and the session's previous run has ended. */
  async run<T>(sessionId: string, user: string, work: (slot: number) => Promise<T>): Promise<T> {
    const ofUser = this.users.get(user) ?? 0;
    if (ofUser >= this.perUser) {
      throw new AppError(
        "BUSY",
        `You already have ${ofUser} ${this.noun}(s) running or waiting on this server (at most ${this.perUser} per user); wait for them to finish, then try again`,
      );
    }
    if (this.admitted >= this.concurrency + this.maxWaiting) {
      throw new AppError("BUSY", `Too many ${this.noun}s are running; try again shortly`);
    }
    this.admitted++;
    this.users.set(user, ofUser + 1);
    const previous = this.sessions.get(sessionId) ?? Promise.resolve();
    const turn = previous.catch(() => undefined).then(() => this.withSlot(work));
    this.sessions.set(sessionId, turn);
    try {
      return await turn;
    } finally {
      this.admitted--;
      const left = (this.users.get(user) ?? 1) - 1;
      if (left > 0) this.users.set(user, left);
      else this.users.delete(user);
      if (this.sessions.get(sessionId) === turn) this.sessions.delete(sessionId);
    }
  }

  private async withSlot<T>(work: (slot: number) => Promise<T>): Promise<T> {
    const slot = this.free.pop() ?? (await new Promise<number>((resolve) => this.waiting.push(resolve)));
    try {
      return await work(slot);
    } finally {
      const next = this.waiting.shift();
      // the slot passes straight to the next waiter, so no newcomer can take it in between
      if (next) next(slot);
      else this.free.push(slot);
    }
  }
}
