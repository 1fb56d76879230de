import type { NatsConnection, Subscription } from "nats";
import { SpanKind } from "@opentelemetry/api";
import {
  AppError,
  decodeJson,
  encodeJson,
  endSubscription,
  inSpan,
  natsAttributes,
  queueRunRequest,
  runEventWatchHoldMs,
  traceHeadersOption,
  type Logger,
} from "@agent-orchestrator/shared/runtime";
import { isFinalEvent, jetStreamNames, RunEvent, subjects, type RunStartRequest } from "@agent-orchestrator/shared/wire";
import { inSeqOrderBySession } from "./seq-order.js";
import { onReconnect } from "./connection-reconnects.js";
import { StoredRunEvents } from "./stored-run-events.js";

export interface RunClientOptions {
  connection: NatsConnection;
  logger: Logger;
  subjectPrefix: string;
  /** how long a turn may wait in the queue for an orchestrator to take it */
  pickupTimeoutMs: number;
  /** the longest silence between two events before the run is given up */
  idleTimeoutMs: number;
  /** how many orchestrators are running: asked when a queued turn has not started after a moment, and at the pickup limit */
  countOrchestrators: () => Promise<number>;
}

/** A turn not started after this long makes the gateway check that any orchestrator is running at all. */
const orchestratorCheckMs = 2_000;

export interface StartedRun {
  /** the turn's first event (`session`): the turn was accepted */
  first: RunEvent;
  /** every event of the turn from the first to `done` or `error` */
  events: AsyncIterable<RunEvent>;
  /** stops listening (the turn itself goes on unless cancelled) */
  close(): void;
}

/** A new run request: the gateway names the run (and the session, for a new chat). */
export type NewRun = Omit<RunStartRequest, "expires_at">;

/**
 * Queues a turn in the `RUN_REQUESTS` work queue and waits for its first event. The event subscription
 * is made before the request is published, so no event is missed. A turn refused at the start (unknown
 * agent, someone else's session, no model) throws its error, so callers can answer with a status code.
 */
export async function startRun(options: RunClientOptions, run: NewRun): Promise<StartedRun> {
  const { connection, subjectPrefix } = options;
  const subscription = connection.subscribe(subjectPrefix + subjects.runEvents(run.session_id, run.run_id));
  const request: RunStartRequest = { ...run, expires_at: Date.now() + options.pickupTimeoutMs };
  try {
    const subject = subjectPrefix + subjects.runRequest(run.session_id);
    // the orchestrator's queue wait and turn continue this producer span's trace
    await inSpan(`send ${subject}`, { kind: SpanKind.PRODUCER, attributes: natsAttributes(subject, "send") }, () =>
      queueRunRequest(connection, subject, encodeJson(request), { msgID: run.run_id, ...traceHeadersOption() }),
    );
  } catch (error) {
    endSubscription(subscription);
    throw error;
  }
  const iterator = readEvents(subscription, run, options);
  const first = await iterator.next();
  if (first.done) throw new AppError("SERVICE_UNAVAILABLE", "The turn ended without any event");
  if (first.value.type === "error") {
    // closes the event reader (its finally unsubscribes); nothing to wait for before the error is thrown
    void iterator.return(undefined);
    throw new AppError(first.value.error.code, first.value.error.message);
  }
  return {
    first: first.value,
    events: (async function* () {
      yield first.value;
      yield* iterator;
    })(),
    close: () => endSubscription(subscription),
  };
}

/**
 * The turn's events for its client, in `seq` order, each once, up to its final event (seq-order.ts holds one that
 * comes ahead of a missing one). They come from the core subscription; when one is missing there (a gap in `seq`)
 * or the connection was re-made (the subscription heard nothing meanwhile, perhaps the final event), the ones the
 * stream stored are read in (stored-run-events.ts), and the read is made again each second while a gap stays open.
 */
async function* readEvents(subscription: Subscription, run: NewRun, options: RunClientOptions): AsyncGenerator<RunEvent> {
  const stored = new StoredRunEvents(
    options.connection,
    jetStreamNames(options.subjectPrefix).runEvents,
    options.subjectPrefix + subjects.runEvents(run.session_id, run.run_id),
    options.logger,
  );
  try {
    for await (const event of inSeqOrderBySession(arrivingEvents(subscription, run.run_id, stored, options), { fromTurnStart: true, holdMs: runEventWatchHoldMs })) {
      yield event;
      if (isFinalEvent(event)) return;
    }
  } finally {
    // ends the arriving events at once, even while they wait for the next message
    endSubscription(subscription);
  }
}

/** How often the stream is read again while an event is missing. */
const gapReadMs = 1_000;

/** The turn's events as they arrive live, with those read from the stream after a gap or a reconnection; repeats are left to the ordering. */
async function* arrivingEvents(subscription: Subscription, runId: string, stored: StoredRunEvents, options: RunClientOptions): AsyncGenerator<RunEvent> {
  let received = 0;
  let timedOut = false;
  let noOrchestrator = false;
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(
      () => {
        timedOut = true;
        endSubscription(subscription);
      },
      received === 0 ? options.pickupTimeoutMs : options.idleTimeoutMs,
    );
  };
  // a queued turn waits for an orchestrator; if none is running, say so now rather than at the pickup
  // timeout. A busy one may miss a ping, so "none" needs two pings in a row that nobody answers.
  const check = setTimeout(() => {
    countTwiceIfNone(options).then(
      (count) => {
        if (count === 0 && received === 0) {
          noOrchestrator = true;
          endSubscription(subscription);
        }
      },
      (error: unknown) => options.logger.warn({ err: error }, "could not count orchestrators"),
    );
  }, Math.min(orchestratorCheckMs, options.pickupTimeoutMs));
  // the seqs seen of the latest attempt: a gap below the highest is an event the subscription missed
  let attempt = 0;
  let seen = new Set<number>();
  let highest = -1;
  const gapOpen = () => seen.size <= highest;
  let reconnected = false;
  let wake: (() => void) | undefined;
  const stopListening = onReconnect(options.connection, () => {
    reconnected = true;
    wake?.();
  });
  const note = (event: RunEvent) => {
    if (event.type === "session" && event.attempt > attempt) {
      attempt = event.attempt;
      seen = new Set();
      highest = -1;
    }
    seen.add(event.seq);
    highest = Math.max(highest, event.seq);
  };
  arm();
  const messages = subscription[Symbol.asyncIterator]();
  const pull = () => {
    const next = messages.next();
    // awaited in the loop; a stored read can end the turn first
    next.catch(() => undefined);
    return next;
  };
  let pending = pull();
  try {
    for (;;) {
      const woken = new Promise<"read">((resolve) => (wake = () => resolve("read")));
      const gapTimer = gapOpen() ? setTimeout(() => wake?.(), gapReadMs) : undefined;
      const result = reconnected ? "read" : await Promise.race([pending, woken]);
      clearTimeout(gapTimer);
      if (result === "read") {
        reconnected = false;
        for (const event of await stored.read()) {
          note(event);
          yield event;
        }
        continue;
      }
      if (result.done) break;
      pending = pull();
      received++;
      clearTimeout(check);
      arm();
      let event: RunEvent;
      try {
        event = decodeJson(result.value.data, RunEvent);
      } catch (error) {
        options.logger.error({ err: error, runId }, "invalid run event dropped");
        continue;
      }
      note(event);
      yield event;
      if (gapOpen()) {
        for (const read of await stored.read()) {
          note(read);
          yield read;
        }
      }
    }
    if (noOrchestrator) throw new AppError("SERVICE_UNAVAILABLE", "No orchestrator is running to take the turn");
    if (timedOut && received === 0) {
      // the queued turn expires unrun; whether anyone is there decides what the client is told
      if ((await countTwiceIfNone(options).catch(() => 1)) === 0) throw new AppError("SERVICE_UNAVAILABLE", "No orchestrator is running to take the turn");
      throw new AppError("OVERLOADED", `Every orchestrator is busy: the turn waited ${options.pickupTimeoutMs} ms without being taken; try again shortly`);
    }
    if (timedOut) throw new AppError("SERVICE_TIMEOUT", `No news from the orchestrator for ${options.idleTimeoutMs} ms`);
  } finally {
    clearTimeout(timer);
    clearTimeout(check);
    stopListening();
    endSubscription(subscription);
  }
}

async function countTwiceIfNone(options: RunClientOptions): Promise<number> {
  const count = await options.countOrchestrators();
  return count > 0 ? count : options.countOrchestrators();
}
