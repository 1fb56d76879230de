import { setTimeout as sleep } from "node:timers/promises";

/** Longer than a JetStream leader election on nats-server 2.9 (an election timeout is 4–9 s). */
const defaultBudgetMs = 20_000;
const pauseMs = 250;

/** True when a JetStream request (or the error it caused) got "no responders": no stream leader answered. */
export function isLeaderless(error: unknown): boolean {
  for (let current: unknown = error; current instanceof Error; current = current.cause) {
    if ((current as { code?: unknown }).code === "503") return true;
  }
  return false;
}

/**
 * Runs a JetStream operation again while its stream has no leader, as during the election that follows
 * the loss of a clustered server. "No responders" means no server took the request, so nothing was
 * stored and a repeat (even of a compare-and-set) is safe. Any other error is thrown at once; so is the
 * last one when the budget is spent.
 */
export async function retryWhileLeaderless<T>(operation: () => Promise<T>, budgetMs = defaultBudgetMs): Promise<T> {
  const deadline = Date.now() + budgetMs;
  for (;;) {
    try {
      return await operation();
    } catch (error) {
      if (!isLeaderless(error) || Date.now() + pauseMs > deadline) throw error;
      await sleep(pauseMs);
    }
  }
}
