import type { Logger } from "./logger.js";

/**
 * Runs `stop` once on SIGTERM or SIGINT, then exits 0 (1 if stopping failed or overran its deadline).
 * `stop` should stop taking new work, let in-flight work finish, and drain the NATS connection.
 */
export function stopOnSignals(logger: Logger, stop: () => Promise<void>, deadlineMs = 10_000): void {
  let stopping = false;
  const handle = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "stopping");
    const timer = setTimeout(() => {
      logger.error({ deadlineMs }, "stop overran its deadline");
      process.exit(1);
    }, deadlineMs);
    timer.unref();
    stop().then(
      () => {
        logger.info("stopped");
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, "stop failed");
        process.exit(1);
      },
    );
  };
  process.once("SIGTERM", handle);
  process.once("SIGINT", handle);
}
