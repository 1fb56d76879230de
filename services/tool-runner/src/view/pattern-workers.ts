import { PatternWorker, watchdogLimits, type WatchdogLimits } from "./pattern-worker.js";

/** Worker threads a tool-runner runs patterns on at most: a search holds one while it runs, others wait. */
export const patternWorkersMax = 2;

/**
 * The tool-runner's pattern workers: started lazily (the first find_files or search_files starts one), kept
 * and reused across calls, at most `max` at once; a call holds one worker for its whole run and waits for one
 * when all are busy. A worker stopped by its watchdog is dropped, and the next call gets a fresh one.
 */
export class PatternWorkers {
  private readonly idle: PatternWorker[] = [];
  private readonly waiting: Array<(worker: PatternWorker) => void> = [];
  private started = 0;

  constructor(
    private readonly max = patternWorkersMax,
    private readonly limits: WatchdogLimits = watchdogLimits,
  ) {}

  /** Runs `job` with a worker of its own, then gives the worker back (or drops it when it was stopped). */
  async use<T>(job: (worker: PatternWorker) => Promise<T>): Promise<T> {
    const worker = await this.acquire();
    try {
      return await job(worker);
    } finally {
      this.release(worker);
    }
  }

  private acquire(): Promise<PatternWorker> {
    // a worker that died while idle (out of memory) is dropped here
    for (let idle = this.idle.pop(); idle; idle = this.idle.pop()) {
      if (!idle.broken) return Promise.resolve(idle);
      this.started -= 1;
    }
    if (this.started < this.max) return Promise.resolve(this.start());
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(worker: PatternWorker): void {
    const next = worker.broken ? undefined : worker;
    if (worker.broken) this.started -= 1;
    const waiter = this.waiting.shift();
    if (waiter) waiter(next ?? this.start());
    else if (next) this.idle.push(next);
  }

  private start(): PatternWorker {
    this.started += 1;
    return new PatternWorker(this.limits);
  }
}
