import { setTimeout as sleep } from "node:timers/promises";

/** How long to keep trying, how long one try may take, and who hears of each failed try. */
export interface RetryBounds {
  timeoutMs: number;
  attemptMs: number;
  onFailure?: (error: unknown) => void;
}

/**
 * Runs `attempt` until it resolves, each try cut off after `attemptMs`, for at most `timeoutMs` in all; then
 * throws the last error. For what must come back once a JetStream election is over: until then requests
 * time out or fail, and a replay's ordered consumer placed on the dead server never answers (docs/operations.md
 * "Known limits on nats-server 2.9"), so a try that hangs is abandoned and made again.
 */
export async function untilItWorks<T>(attempt: () => Promise<T>, bounds: RetryBounds): Promise<T> {
  const deadline = Date.now() + bounds.timeoutMs;
  let last: unknown;
  for (let tries = 1; ; tries += 1) {
    try {
      return await withinMs(attempt(), bounds.attemptMs);
    } catch (error) {
      last = error;
      bounds.onFailure?.(error);
    }
    if (Date.now() > deadline) throw new Error(`still failing after ${tries} tries in ${bounds.timeoutMs} ms: ${String(last)}`);
    await sleep(250);
  }
}

/** `work`, or a rejection once `ms` have passed (the work itself is left to settle on its own). */
export function withinMs<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}
