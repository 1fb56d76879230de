import type { Consumer, JsMsg } from "nats";
import { decodeJson, RunStartRequest, type Logger } from "@agent-orchestrator/shared";
import { inQueuedTurnSpan } from "./queued-turn-span.js";

export interface RunQueueOptions {
  consumer: Consumer;
  concurrency: number;
  ackWaitMs: number;
  logger: Logger;
  /** `subject` is where the request was queued: a subagent's turn is trusted only from its own subject */
  run: (request: RunStartRequest, attempt: number, subject: string) => Promise<void>;
}

export interface RunQueue {
  /** stops taking requests and waits for the turns in progress */
  stop(): Promise<void>;
  /**
   * Adds a worker until the returned function is called. A turn waiting for a subagent lends one for it,
   * so turns waiting on their children never hold every worker while the children wait in the queue.
   */
  lendSlot(): () => void;
}

/** How long one pull waits for a request; also the longest a stop waits for idle workers. */
const pullExpiresMs = 2_000;

/**
 * Takes turn requests from the durable work-queue consumer with `concurrency` workers, each pulling one
 * request at a time, so a busy orchestrator never holds requests another one could run. While a turn
 * runs it is kept alive (`working()`); it is acknowledged when it has ended, with `done` or `error`.
 * If this process dies, the request is redelivered to another orchestrator after the ack wait.
 */
export function startRunQueue(options: RunQueueOptions): RunQueue {
  let stopping = false;
  const heartbeatMs = Math.max(250, Math.floor(options.ackWaitMs / 3));

  async function worker(released: () => boolean): Promise<void> {
    while (!stopping && !released()) {
      let message: JsMsg | null;
      try {
        message = await options.consumer.next({ expires: pullExpiresMs });
      } catch (error) {
        if (stopping) return;
        options.logger.warn({ err: error }, "pulling turn requests failed; retrying");
        await new Promise((resolve) => setTimeout(resolve, 500));
        continue;
      }
      if (!message) continue;
      if (stopping) {
        // hand it back for later, not at once: an immediate redelivery can land on this process's other
        // pulls, which hand it back again until max_deliver is spent and the turn is lost; by then they
        // have all expired and only running replicas pull
        message.nak(pullExpiresMs + 1_000);
        return;
      }
      await handle(message);
    }
  }

  async function handle(message: JsMsg): Promise<void> {
    let request: RunStartRequest;
    try {
      request = decodeJson(message.data, RunStartRequest);
    } catch (error) {
      options.logger.error({ err: error, seq: message.seq }, "invalid turn request dropped");
      message.term();
      return;
    }
    if (Date.now() > request.expires_at) {
      options.logger.warn({ sessionId: request.session_id, runId: request.run_id }, "turn request expired before it could run; dropped");
      message.term();
      return;
    }
    const heartbeat = setInterval(() => message.working(), heartbeatMs);
    try {
      await inQueuedTurnSpan(message, request, message.info.redeliveryCount, () => options.run(request, message.info.redeliveryCount, message.subject));
      message.ack();
    } catch (error) {
      // runTurn reports its own failures as events; reaching here is a bug, and a retry will not help
      options.logger.error({ err: error, sessionId: request.session_id }, "turn crashed");
      message.term();
    } finally {
      clearInterval(heartbeat);
    }
  }

  const workers = new Set<Promise<void>>();
  const spawn = (released: () => boolean) => {
    const running: Promise<void> = worker(released).finally(() => workers.delete(running));
    workers.add(running);
  };
  for (let index = 0; index < options.concurrency; index++) spawn(() => false);
  return {
    stop: async () => {
      stopping = true;
      while (workers.size > 0) await Promise.allSettled([...workers]);
    },
    lendSlot: () => {
      let released = false;
      if (!stopping) spawn(() => released);
      return () => {
        released = true;
      };
    },
  };
}
