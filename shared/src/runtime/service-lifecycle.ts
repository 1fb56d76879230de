import type { Logger } from "./logger.js";

/** Why a service stops: a signal, or the launcher that started it is gone. */
type StopCause = NodeJS.Signals | "parent-gone";

// Read when the module loads, before the event loop runs: a launcher that died in the first instants closes
// the channel unseen, and `process.channel` is gone by the time a service has started.
const startedWithChannel = process.channel !== undefined;

/**
 * Runs `stop` once on SIGTERM or SIGINT, or when the launcher that started the process is gone, then exits 0
 * (1 if stopping failed or overran `deadlineMs`). `stop` should stop taking new work, let in-flight work
 * finish, and drain the NATS connection.
 *
 * The launcher of `npm start` (scripts/start.ts) gives each service an IPC channel as its lifeline: the kernel
 * closes it when the launcher dies, however it dies (SIGKILL included), and the service then stops as on
 * SIGTERM (docs/security.md case 144). Linux's PR_SET_PDEATHSIG is not reachable from Node; the channel is.
 * A process started without one (containers, systemd, `nohup`) outlives its parent as before.
 */
function stopOnSignals(logger: Logger, stop: () => Promise<void>, deadlineMs = 10_000): void {
  let stopping = false;
  const handle = (cause: StopCause) => {
    if (stopping) return;
    stopping = true;
    if (cause === "parent-gone") logger.warn({ reason: "the launcher that started this process is gone", deadlineMs }, "stopping");
    else logger.info({ signal: cause }, "stopping");
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
  if (!startedWithChannel) return;
  if (!process.connected) {
    handle("parent-gone");
    return;
  }
  process.once("disconnect", () => handle("parent-gone"));
  // the lifeline only watches: it never keeps the process alive by itself
  process.channel?.unref();
}

/** A service's start and its stop of what the start made. */
export interface ServiceRun<T> {
  start(): Promise<T>;
  stop(started: T): Promise<void>;
  /** how long the stop may take (default 10 s) */
  deadlineMs?: number;
  /** how long a stop waits for a start still under way before the process exits 1 (default 10 s) */
  startWaitMs?: number;
}

/**
 * Starts a service with `stopOnSignals` watching from its first moment: a signal, or the launcher gone, while
 * it is still starting waits for the start to end, then stops what it started; a start that does not end soon
 * (NATS unreachable: the first connection is retried for ever) ends the process instead of leaving an orphan
 * (docs/security.md case 144). Resolves with what `start` made; a failed start rejects, for the caller to report.
 */
export function runService<T>(logger: Logger, run: ServiceRun<T>): Promise<T> {
  let starting = true;
  const started = run.start().finally(() => (starting = false));
  const startWaitMs = run.startWaitMs ?? 10_000;
  stopOnSignals(
    logger,
    async () => {
      if (starting) logger.info({ startWaitMs }, "still starting: the stop waits for the start to end");
      await run.stop(await endOfStart(started, startWaitMs));
    },
    run.deadlineMs,
  );
  return started;
}

async function endOfStart<T>(started: Promise<T>, waitMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const stillStarting = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still starting ${waitMs} ms after the stop was asked`)), waitMs);
  });
  try {
    return await Promise.race([started, stillStarting]);
  } finally {
    clearTimeout(timer);
  }
}
