import type { Consumer, JsMsg } from "nats";
import { decodeJson, natsRetryDelay, type Logger } from "@agent-orchestrator/shared/runtime";
import { RunStartRequest } from "@agent-orchestrator/shared/wire";
import { inQueuedTurnSpan } from "./queued-turn-span.js";

export interface RunQueueOptions {
  consumer: Consumer;
  concurrency: number;
  ackWaitMs: number;
  logger: Logger;
  /** `subject` is where the request was queued: a subagent's turn is trusted only from its own subject */
  run: (request: RunStartRequest, attempt: number, subject: string) => Promise<void>;
  /**
   * Called each time every slot is busy and the pull loop waits for one to free, having asked the server
   * for nothing more: a test's barrier for "it decided not to pull". Not needed in production.
   */
  onFull?: () => void;
}

export interface RunQueue {
  /** stops taking requests and waits for the turns in progress */
  stop(): Promise<void>;
  /**
   * Adds a slot until the returned function is called. A turn waiting for a subagent lends one for it,
   * so turns waiting on their children never hold every slot while the children wait in the queue.
   */
  lendSlot(): () => void;
}

/** How long one pull waits for requests; also the longest a stop waits for the pull in flight. */
const pullExpiresMs = 2_000;

/**
 * Takes turn requests from the durable work-queue consumer and runs up to `concurrency` at a time. One pull
 * at a time asks for as many requests as there are free slots, so a busy orchestrator never holds requests
 * another one could run, and the server hands the requests of a batch pull round-robin to the replicas'
 * pulls. (A pull per slot, each for one request, spread them badly: the server serves the oldest pull, the
 * busy replica's pulls are always older than the idle one's, which expire and come back together, and one
 * replica could take every turn for many seconds.) While a turn runs it is kept alive (`working()`); it is
 * acknowledged when it has ended, with `done` or `error`. If this process dies, the request is redelivered
 * to another orchestrator after the ack wait.
 */
export function startRunQueue(options: RunQueueOptions): RunQueue {
  let stopping = false;
  let capacity = options.concurrency;
  const running = new Set<Promise<void>>();
  let slotFreed: (() => void) | undefined;
  const wake = () => {
    slotFreed?.();
    slotFreed = undefined;
  };
  const heartbeatMs = Math.max(250, Math.floor(options.ackWaitMs / 3));

  async function pullLoop(): Promise<void> {
    // pulls failed in a row: the pause before the next grows with them (a NATS outage), up to one pull's wait
    let failures = 0;
    while (!stopping) {
      const free = capacity - running.size;
      if (free <= 0) {
        options.onFull?.();
        await new Promise<void>((resolve) => (slotFreed = resolve));
        continue;
      }
      try {
        for await (const message of await options.consumer.fetch({ max_messages: free, expires: pullExpiresMs })) {
          if (stopping) {
            // hand it back for later, not at once: an immediate redelivery could come back to this pull,
            // which hands it back again until max_deliver is spent and the turn is lost; by then the pull has
            // expired and only running replicas pull
            message.nak(pullExpiresMs + 1_000);
            continue;
          }
          const turn: Promise<void> = handle(message).finally(() => {
            running.delete(turn);
            wake();
          });
          running.add(turn);
        }
        failures = 0;
      } catch (error) {
        if (stopping) return;
        failures += 1;
        options.logger.warn({ err: error }, "pulling turn requests failed; retrying");
        await new Promise((resolve) => setTimeout(resolve, natsRetryDelay(failures, { firstDelayMs: 500, maxDelayMs: pullExpiresMs })));
      }
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

  const pulling = pullLoop();
  return {
    stop: async () => {
      stopping = true;
      wake();
      await pulling;
      while (running.size > 0) await Promise.allSettled([...running]);
    },
    lendSlot: () => {
      let given = !stopping;
      if (given) {
        capacity++;
        wake();
      }
      return () => {
        if (!given) return;
        given = false;
        capacity--;
      };
    },
  };
}
