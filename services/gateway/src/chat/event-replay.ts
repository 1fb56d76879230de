import { DeliverPolicy, type NatsConnection } from "nats";
import { decodeJson, runEventWatchHoldMs, type Logger } from "@agent-orchestrator/shared/runtime";
import { jetStreamNames, RunEvent, subjects } from "@agent-orchestrator/shared/wire";
import { inSeqOrder, inSeqOrderBySession } from "./seq-order.js";

export interface ReplayOptions {
  connection: NatsConnection;
  logger: Logger;
  subjectPrefix: string;
  /** stop after this long without a new event */
  idleTimeoutMs: number;
  signal?: AbortSignal;
}

/**
 * A turn's events from the `RUN_EVENTS` stream: everything stored from its first event, then the live
 * ones as they are published, until `done` or `error` (or silence, or the signal), in `seq` order. This
 * is how a client that dropped re-attaches without missing anything.
 */
export function replayRun(options: ReplayOptions, sessionId: string, runId: string): AsyncGenerator<RunEvent> {
  // "all" is the ordered consumer's default; asking for it explicitly makes nats.js 2.29 hang on server 2.9
  return inSeqOrder(streamEvents(options, subjects.runEvents(sessionId, runId), {}));
}

/**
 * Every turn of a session from `since` (the running turn's start) or from now on, until the signal
 * aborts or the idle timeout passes, each turn in `seq` order: what a WebSocket `watch` relays.
 */
export function watchSession(options: ReplayOptions, sessionId: string, since: string | null): AsyncGenerator<RunEvent> {
  const start = since ? { deliver_policy: DeliverPolicy.StartTime, opt_start_time: since } : { deliver_policy: DeliverPolicy.New };
  return inSeqOrderBySession(streamEvents(options, subjects.sessionEvents(sessionId), start), { fromTurnStart: since !== null, holdMs: runEventWatchHoldMs });
}

/** Each pull of a replay waits this long; also the pause before a failed consumer creation is retried. */
const replayPullExpiresMs = 2_000;

async function* streamEvents(
  options: ReplayOptions,
  subject: string,
  start: { deliver_policy?: DeliverPolicy; opt_start_time?: string },
): AsyncGenerator<RunEvent> {
  const names = jetStreamNames(options.subjectPrefix);
  const consumer = await options.connection.jetstream().consumers.get(names.runEvents, {
    filterSubjects: options.subjectPrefix + subject,
    ...start,
  });
  // nats.js waits `expires` (30 s by default) before it tries again to create an ordered consumer that
  // could not be created, as when the cluster placed it on a server that has just died
  const messages = await consumer.consume({ expires: replayPullExpiresMs });
  let idle: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(idle);
    idle = setTimeout(() => void messages.close(), options.idleTimeoutMs);
  };
  const onAbort = () => void messages.close();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  arm();
  try {
    for await (const message of messages) {
      arm();
      let event: RunEvent;
      try {
        event = decodeJson(message.data, RunEvent);
      } catch (error) {
        options.logger.error({ err: error, subject: message.subject }, "invalid stored run event skipped");
        continue;
      }
      yield event;
    }
  } finally {
    clearTimeout(idle);
    options.signal?.removeEventListener("abort", onAbort);
    await messages.close();
  }
}
