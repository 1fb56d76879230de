import type { NatsConnection, Subscription } from "nats";
import {
  AppError,
  decodeJson,
  isFinalEvent,
  requestJson,
  RunEvent,
  RunStartReply,
  subjects,
  type Logger,
  type RunStartRequest,
} from "@agent-orchestrator/shared";

export interface RunClientOptions {
  connection: NatsConnection;
  logger: Logger;
  subjectPrefix: string;
  startTimeoutMs: number;
  /** the longest silence between two events before the run is given up */
  idleTimeoutMs: number;
}

export interface StartedRun {
  events: AsyncIterable<RunEvent>;
  /** stops listening (the turn itself goes on) */
  close(): void;
}

/**
 * Starts a turn on the orchestrator and yields its events until `done` or `error`. The event
 * subscription is made before the request, so no event can be missed; a refused start throws.
 */
export async function startRun(options: RunClientOptions, request: RunStartRequest): Promise<StartedRun> {
  const { connection, subjectPrefix } = options;
  const subscription = connection.subscribe(subjectPrefix + subjects.runEvents(request.session_id));
  try {
    const reply = await requestJson(connection, subjectPrefix + subjects.runStart, request, RunStartReply, {
      timeoutMs: options.startTimeoutMs,
    });
    if (!reply.success) throw new AppError(reply.error.code, reply.error.message);
  } catch (error) {
    subscription.unsubscribe();
    throw error;
  }
  return { events: runEvents(subscription, request.run_id, options), close: () => subscription.unsubscribe() };
}

async function* runEvents(subscription: Subscription, runId: string, options: RunClientOptions): AsyncGenerator<RunEvent> {
  let timedOut = false;
  let idle: NodeJS.Timeout | undefined;
  const armIdleTimer = () => {
    clearTimeout(idle);
    idle = setTimeout(() => {
      timedOut = true;
      subscription.unsubscribe();
    }, options.idleTimeoutMs);
  };
  armIdleTimer();
  try {
    for await (const message of subscription) {
      armIdleTimer();
      let event: RunEvent;
      try {
        event = decodeJson(message.data, RunEvent);
      } catch (error) {
        options.logger.error({ err: error, runId }, "invalid run event dropped");
        continue;
      }
      if (event.run_id !== runId) continue;
      yield event;
      if (isFinalEvent(event)) return;
    }
    if (timedOut) throw new AppError("SERVICE_TIMEOUT", `No news from the orchestrator for ${options.idleTimeoutMs} ms`);
  } finally {
    clearTimeout(idle);
    subscription.unsubscribe();
  }
}
