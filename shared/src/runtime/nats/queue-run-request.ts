import type { MsgHdrs, NatsConnection } from "nats";
import { AppError } from "../app-error.js";
import { jetStreamOf } from "./kept-jetstream.js";
import { natsFailureKind } from "./nats-failure.js";
import { retryNats, type NatsRetryPolicy } from "./nats-retry.js";
import { leaderElectionWaitMs } from "./nats-wait-budgets.js";

/** Each publish waits this long for the stream's acknowledgement. */
const publishAttemptTimeoutMs = 1_500;
/** Tries of a publish that timed out on a single server: after a reconnect the first acknowledgement can be lost. */
const singleServerAttempts = 4;

interface QueueRunRequestOptions {
  /** the run id: the stream stores a repeated publish once */
  msgID: string;
  headers?: MsgHdrs;
  /** stops the retries (a subagent's parent was cancelled) */
  signal?: AbortSignal;
  /** at most this long in all, when less than a leader election's wait (a subagent that has less time left) */
  budgetMs?: number;
}

/**
 * Publishes a turn (a user's, from the gateway, or a subagent's, from the orchestrator) into the `RUN_REQUESTS`
 * work queue and waits for the stream's acknowledgement. The message id makes every repeat a no-op, so a
 * publish that timed out is sent again. On a single server "no responders" means no orchestrator has made the
 * stream yet, and fails at once; in a cluster it also means the stream is electing a leader, so it is tried
 * again, as a timeout is, for as long as an election takes. Either way the turn, if refused, is
 * SERVICE_UNAVAILABLE.
 */
export async function queueRunRequest(connection: NatsConnection, subject: string, data: Uint8Array, options: QueueRunRequestOptions): Promise<void> {
  const budgetMs = Math.min(options.budgetMs ?? leaderElectionWaitMs, leaderElectionWaitMs);
  const policy: NatsRetryPolicy = connection.info?.cluster
    ? { retryOn: ["no-responders", "no-leader", "timeout"], budgetMs }
    : { retryOn: ["timeout"], budgetMs, maxAttempts: singleServerAttempts };
  try {
    await retryNats(
      () => jetStreamOf(connection).publish(subject, data, { msgID: options.msgID, timeout: publishAttemptTimeoutMs, ...(options.headers ? { headers: options.headers } : {}) }),
      { ...policy, ...(options.signal ? { signal: options.signal } : {}) },
    );
  } catch (error) {
    if (options.signal?.aborted) throw error;
    if (natsFailureKind(error) === "no-responders") {
      throw new AppError("SERVICE_UNAVAILABLE", "No orchestrator has set up the run queue yet; is the orchestrator running?", { cause: error });
    }
    throw new AppError("SERVICE_UNAVAILABLE", "The turn could not be queued", { cause: error });
  }
}
