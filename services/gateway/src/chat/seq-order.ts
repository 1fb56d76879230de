import { isFinalEvent, type RunEvent } from "@agent-orchestrator/shared/wire";

/**
 * One turn's events put back in `seq` order, once each, up to its `done` or `error`. The orchestrator sends
 * events without waiting for each other's acknowledgement and re-sends from the first unacknowledged one
 * when a store fails, so around a leader change `RUN_EVENTS` can hold an event after a later one, and
 * twice. An event ahead of its turn is held until the missing ones come (the orchestrator repeats them
 * until stored); a takeover (a `session` event of a later attempt) numbers from 0 again. What is held when
 * the turn is drained (its source ended, a takeover or a later turn began, or it waited too long) comes out
 * in order: its gap is an event never stored.
 */
class TurnOrder {
  private attempt = 0;
  private readonly held = new Map<number, RunEvent>();
  /** when the oldest held event arrived (undefined while nothing is held) */
  heldSince: number | undefined;
  ended = false;

  /** `next`: the first seq expected; undefined takes the first event's own (a watch that joins a turn midway) */
  constructor(private next: number | undefined) {}

  /** The events `event` makes ready, in order. */
  accept(event: RunEvent, now: number): RunEvent[] {
    if (this.ended) return [];
    const ready: RunEvent[] = [];
    if (event.type === "session" && event.attempt > this.attempt) {
      // a takeover: what the earlier attempt stored comes first (the first attempt's own session event may come
      // after a later event, which then waits for it like any other)
      if (this.attempt > 0) {
        ready.push(...this.drain());
        if (this.ended) return ready;
        this.next = 0;
      }
      this.attempt = event.attempt;
    }
    this.next ??= event.seq;
    if (event.seq < this.next) return ready;
    this.held.set(event.seq, event);
    for (let found = this.held.get(this.next); found; found = this.held.get(this.next)) {
      this.held.delete(this.next++);
      ready.push(found);
      if (isFinalEvent(found)) return this.end(ready);
    }
    this.heldSince = this.held.size === 0 ? undefined : (this.heldSince ?? now);
    return ready;
  }

  /** Everything held, in order, up to a final event; later events go on from after the last one given. */
  drain(): RunEvent[] {
    const ready: RunEvent[] = [];
    for (const event of [...this.held.values()].sort((a, b) => a.seq - b.seq)) {
      ready.push(event);
      this.next = event.seq + 1;
      if (isFinalEvent(event)) return this.end(ready);
    }
    this.held.clear();
    this.heldSince = undefined;
    return ready;
  }

  private end(ready: RunEvent[]): RunEvent[] {
    this.ended = true;
    this.held.clear();
    this.heldSince = undefined;
    return ready;
  }
}

/** One turn's stored events, from its first, in `seq` order up to its final event (a re-attach's replay). */
export async function* inSeqOrder(events: AsyncIterable<RunEvent>): AsyncGenerator<RunEvent> {
  const turn = new TurnOrder(0);
  for await (const event of events) {
    yield* turn.accept(event, 0);
    if (turn.ended) return;
  }
  yield* turn.drain();
}

export interface SessionOrderOptions {
  /** the watch began at the running turn's start: every turn is read from seq 0; otherwise a turn already under way is joined at its first event seen */
  fromTurnStart: boolean;
  /** the longest an event is held for a missing one before what is held comes out anyway (a watch can last a day) */
  holdMs: number;
  now?: () => number;
}

/** Turns of a session that have ended, remembered so their late copies are dropped. */
const endedTurnsKept = 16;

/**
 * A session's events, turn after turn, each turn in `seq` order (see TurnOrder): what a WebSocket `watch` relays.
 * One turn runs at a time in a session, so when a later turn begins, the earlier one has ended and whatever
 * it still holds comes out first; events of a turn that has ended are dropped.
 */
export async function* inSeqOrderBySession(events: AsyncIterable<RunEvent>, options: SessionOrderOptions): AsyncGenerator<RunEvent> {
  const now = options.now ?? Date.now;
  // only the turn running when the watch began can be joined midway; a later one is read from its start
  let joinMidway = !options.fromTurnStart;
  let current: { runId: string; order: TurnOrder } | undefined;
  const ended: string[] = [];
  const iterator = events[Symbol.asyncIterator]();
  const pull = () => {
    const next = iterator.next();
    // awaited in the loop; if the loop ends first, its failure is the source's to report
    next.catch(() => undefined);
    return next;
  };
  let pending = pull();
  try {
    for (;;) {
      const heldSince = current?.order.heldSince;
      const result = heldSince === undefined ? await pending : await withinMs(pending, heldSince + options.holdMs - now());
      if (result === undefined) {
        if (current) yield* current.order.drain();
        continue;
      }
      if (result.done) break;
      pending = pull();
      const event = result.value;
      if (event.run_id !== current?.runId) {
        if (ended.includes(event.run_id)) continue;
        if (current) {
          yield* current.order.drain();
          ended.push(current.runId);
          if (ended.length > endedTurnsKept) ended.shift();
        }
        current = { runId: event.run_id, order: new TurnOrder(joinMidway ? undefined : 0) };
        joinMidway = false;
      }
      yield* current.order.accept(event, now());
    }
    if (current) yield* current.order.drain();
  } finally {
    // not awaited: a source waiting for its next event finishes its return only once that wait ends
    void iterator.return?.().catch(() => undefined);
  }
}

/** The source's next result, or undefined once `ms` have passed first. */
async function withinMs<T>(pending: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(resolve, Math.max(0, ms), undefined)));
  try {
    return await Promise.race([pending, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
