/** The bounds of a `FairShareQueue`. */
export interface FairShareBounds {
  /** conversions running at once */
  slots: number;
  /** conversions waiting for a slot, all users together (CONVERT_QUEUE_MAX) */
  maxWaiting: number;
  /** conversions one user may have running or waiting (CONVERT_QUEUE_PER_USER) */
  perUser: number;
}

/** A place in the queue (`turn` resolves when its slot is free), or why there is none. */
export type QueueEntry = { ok: true; turn: Promise<void> } | { ok: false; reason: string };

interface Waiter {
  user: string;
  start: () => void;
}

/**
 * A few slots shared between users in turns (docs/uploads.md "Documents become Markdown"): a free slot goes to
 * the waiting user who has started the fewest conversions since they last had none running or waiting (among
 * equals, whoever has waited longest), so one user's many documents take turns with another user's one instead
 * of all going first. Past `perUser` for its user or `maxWaiting` in all, `enter` refuses at once with a
 * reason that begins "conversion queue full". Each `enter` that was admitted ends with one `leave`.
 */
export class FairShareQueue {
  private readonly waiting: Waiter[] = [];
  /** users with a conversion running or waiting: how many, and how many they started since they had none */
  private readonly users = new Map<string, { active: number; started: number }>();
  private busy = 0;

  constructor(private readonly bounds: FairShareBounds) {}

  enter(user: string): QueueEntry {
    const share = this.users.get(user) ?? { active: 0, started: 0 };
    if (share.active >= this.bounds.perUser) {
      return { ok: false, reason: `conversion queue full: you have ${share.active} converting or waiting, the most one user may have; upload it again when they are done` };
    }
    if (this.busy < this.bounds.slots) {
      this.busy += 1;
      this.users.set(user, { active: share.active + 1, started: share.started + 1 });
      return { ok: true, turn: Promise.resolve() };
    }
    if (this.waiting.length >= this.bounds.maxWaiting) {
      return { ok: false, reason: `conversion queue full (${this.waiting.length} waiting); upload it again later` };
    }
    this.users.set(user, { active: share.active + 1, started: share.started });
    return { ok: true, turn: new Promise((start) => this.waiting.push({ user, start })) };
  }

  /** Ends `user`'s conversion and hands its slot to the next waiting user's. */
  leave(user: string): void {
    const share = this.users.get(user);
    if (share !== undefined) {
      share.active -= 1;
      if (share.active === 0) this.users.delete(user);
    }
    const next = this.nextWaiter();
    if (next === undefined) {
      this.busy -= 1;
      return;
    }
    const nextShare = this.users.get(next.user);
    if (nextShare !== undefined) nextShare.started += 1;
    next.start();
  }

  private nextWaiter(): Waiter | undefined {
    let best = -1;
    let fewest = Number.POSITIVE_INFINITY;
    // `waiting` is in arrival order, so the first with the fewest starts has waited longest among its equals
    this.waiting.forEach((waiter, index) => {
      const started = this.users.get(waiter.user)?.started ?? 0;
      if (started < fewest) {
        fewest = started;
        best = index;
      }
    });
    return best === -1 ? undefined : this.waiting.splice(best, 1)[0];
  }
}
