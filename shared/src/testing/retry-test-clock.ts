import { afterEach, beforeEach, vi } from "vitest";

/**
 * For tests of the NATS retries: a fake clock for each test, with the pauses at their full length (the jitter
 * takes off at most half, so `Math.random` is held at 1), both undone after the test.
 */
export function useRetryTestClock(): void {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.spyOn(Math, "random").mockReturnValue(1);
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });
}

/** Settles `work` by running the fake clock: its value or its error, without an unhandled rejection on the way. */
export async function settleOnFakeClock<T>(work: Promise<T>): Promise<{ value?: T; error?: unknown }> {
  const outcome = work.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  await vi.runAllTimersAsync();
  return outcome;
}
