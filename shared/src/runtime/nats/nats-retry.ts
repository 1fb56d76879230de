import { leaderElectionWaitMs } from "./nats-wait-budgets.js";
import { natsFailureKind, type NatsFailureKind } from "./nats-failure.js";

/** Which failures are tried again, and for how long. */
export interface NatsRetryPolicy {
  /**
   * the kinds tried again; any other failure is thrown at once. Only a kind after which a repeat cannot do
   * harm belongs here: `no-responders` and `no-leader` always (nothing ran), `timeout` only where a repeat is a
   * no-op (a publish with a message id, a content-addressed put, a read)
   */
  retryOn: readonly NatsFailureKind[];
  /** from the first try: no pause is started that would end after it, and the last failure is thrown */
  budgetMs: number;
  /** at most this many tries in all (unbounded within the budget when absent) */
  maxAttempts?: number;
  /** the first pause; each next one doubles, up to `maxDelayMs` */
  firstDelayMs?: number;
  maxDelayMs?: number;
}

interface NatsRetryOptions extends NatsRetryPolicy {
  /** stops the waiting: a pause ends at once and the signal's reason is thrown */
  signal?: AbortSignal;
  /** told of each failure that is about to be tried again, before its pause */
  onRetry?: (failure: { error: unknown; kind: NatsFailureKind; attempt: number; delayMs: number }) => void;
}

const defaultFirstDelayMs = 100;
const defaultMaxDelayMs = 1_000;

/**
 * The pause before try `attempt + 1`: exponential from `firstDelayMs`, capped at `maxDelayMs`, with half of it
 * random ("equal jitter"), so replicas that failed together do not come back together, and none comes back
 * at once.
 */
export function natsRetryDelay(attempt: number, policy: Pick<NatsRetryPolicy, "firstDelayMs" | "maxDelayMs">): number {
  const ceiling = Math.min(policy.maxDelayMs ?? defaultMaxDelayMs, (policy.firstDelayMs ?? defaultFirstDelayMs) * 2 ** (attempt - 1));
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

/**
 * Runs `operation` (given its try's number, from 1) until it succeeds, trying again after the failures the
 * policy names (docs/nats.md "Failures and retries"), with growing pauses, within the budget and the try
 * limit; throws the last failure, or the signal's reason once it aborts. Every service that repeats a NATS
 * call does it through here (a loop that never gives up, as the run queue's pull, pauses by `natsRetryDelay`).
 * Timers are the global ones, so fake timers drive it in tests.
 */
export async function retryNats<T>(operation: (attempt: number) => Promise<T>, options: NatsRetryOptions): Promise<T> {
  const deadline = Date.now() + options.budgetMs;
  for (let attempt = 1; ; attempt += 1) {
    options.signal?.throwIfAborted();
    try {
      return await operation(attempt);
    } catch (error) {
      options.signal?.throwIfAborted();
      const kind = natsFailureKind(error);
      const delayMs = natsRetryDelay(attempt, options);
      const triesLeft = options.maxAttempts === undefined || attempt < options.maxAttempts;
      if (!options.retryOn.includes(kind) || !triesLeft || Date.now() + delayMs > deadline) throw error;
      options.onRetry?.({ error, kind, attempt, delayMs });
      await pause(delayMs, options.signal);
    }
  }
}

/**
 * Runs a JetStream operation again while its stream has no leader, as during the election that follows the
 * loss of a clustered server. Nobody took the request, so nothing was stored and a repeat (even of a
 * compare-and-set) is safe. A timeout is not repeated: the write may have landed.
 */
export function retryWhileLeaderless<T>(operation: () => Promise<T>, budgetMs = leaderElectionWaitMs): Promise<T> {
  return retryNats(operation, { retryOn: ["no-responders", "no-leader"], budgetMs });
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
