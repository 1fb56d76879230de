import { isFinalEvent, type RunEvent } from "@agent-orchestrator/shared";

/**
 * A turn's stored events in `seq` order, once each, up to its `done` or `error`. The orchestrator sends
 * events without waiting for each other's acknowledgement and re-sends from the first unacknowledged one
 * when a store fails, so around a leader change `RUN_EVENTS` can hold an event after a later one, and
 * twice. An event ahead of its turn is held until the missing ones come (the orchestrator repeats them
 * until stored); a takeover (a `session` event of a later attempt) numbers from 0 again. Whatever is held
 * when the source ends, or when a takeover begins, comes out in order: its gap is an event never stored.
 */
export async function* inSeqOrder(events: AsyncIterable<RunEvent>): AsyncGenerator<RunEvent> {
  let attempt = 0;
  let next = 0;
  const held = new Map<number, RunEvent>();
  const heldInOrder = () => [...held.values()].sort((a, b) => a.seq - b.seq);
  for await (const event of events) {
    if (event.type === "session" && event.attempt > attempt) {
      for (const earlier of heldInOrder()) yield earlier;
      held.clear();
      attempt = event.attempt;
      next = 0;
    }
    if (event.seq < next) continue;
    held.set(event.seq, event);
    for (let ready = held.get(next); ready; ready = held.get(next)) {
      held.delete(next++);
      yield ready;
      if (isFinalEvent(ready)) return;
    }
  }
  for (const event of heldInOrder()) {
    yield event;
    if (isFinalEvent(event)) return;
  }
}
