/**
 * Waits for positive evidence: polls `check` until it returns true (or a truthy value), failing with `message`
 * after `timeoutMs`. Unlike `vi.waitFor` it never moves a fake clock: it keeps the real timers it found at
 * import, and counts its own polls, so a test can wait for a real event (a file-system notice, a message)
 * while the code under test runs on `vi.useFakeTimers()`.
 */
const realSetTimeout = globalThis.setTimeout;

export interface WaitUntilOptions {
  /** how long to wait in all (default 10 s: generous, so a loaded machine only makes it slower) */
  timeoutMs?: number;
  /** how often to look (default 10 ms) */
  intervalMs?: number;
  /** what was awaited, for the error */
  message?: string;
}

export async function waitUntil<T>(check: () => T | Promise<T>, options: WaitUntilOptions = {}): Promise<NonNullable<T>> {
  const { timeoutMs = 10_000, intervalMs = 10, message = "a condition" } = options;
  for (let polls = Math.ceil(timeoutMs / intervalMs); ; polls--) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (polls <= 0) throw new Error(`timed out after ${timeoutMs} ms waiting for ${message}`);
    await new Promise((resolve) => realSetTimeout(resolve, intervalMs));
  }
}
