import type { Conversion, ConversionLimits } from "./conversion.js";
import { checkDocument, convertDocument } from "./convert-document.js";
import { stoppedReason } from "./run-conversion-worker.js";

/** At most this many conversions run at once (each is a worker thread busy on one core); the rest queue. */
export const maxConversionWorkers = 2;

/**
 * The tool-runner's document conversions: at most `workers` at once (1 unless told, at most 2), the others
 * queued in arrival order; files that are no document, too large, or not what their name claims are answered
 * at once without queueing. `close()` (at service stop) stops the conversions running and answers the queued
 * ones `failed` with a reason saying so; later calls are answered the same way. No worker outlives its
 * conversion, and none holds the process open.
 */
export class DocumentConverter {
  private readonly stopping = new AbortController();
  private readonly queue: (() => void)[] = [];
  private readonly running = new Set<Promise<Conversion>>();
  private readonly workers: number;
  private busy = 0;

  constructor(
    private readonly limits: ConversionLimits,
    options: { workers?: number } = {},
  ) {
    this.workers = Math.min(Math.max(1, Math.floor(options.workers ?? 1)), maxConversionWorkers);
  }

  async convert(name: string, content: Uint8Array): Promise<Conversion> {
    const checked = checkDocument(name, content, this.limits);
    if (checked.kind !== "convert") return checked;
    if (this.stopping.signal.aborted) return { kind: "failed", reason: stoppedReason, format: checked.format };
    await this.turn();
    const conversion = convertDocument(name, content, this.limits, this.stopping.signal);
    this.running.add(conversion);
    try {
      return await conversion;
    } finally {
      this.running.delete(conversion);
      this.release();
    }
  }

  /** Stops every conversion, running or queued; resolves once their workers are gone. */
  async close(): Promise<void> {
    this.stopping.abort();
    await Promise.all([...this.running]);
  }

  private turn(): Promise<void> {
    if (this.busy < this.workers) {
      this.busy += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.queue.push(resolve));
  }

  /** Hands the finished conversion's turn to the next queued one (which, after close, fails at once). */
  private release(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.busy -= 1;
  }
}
