import type { Conversion, ConversionLimits } from "./conversion.js";
import { checkDocument, convertDocument } from "./convert-document.js";
import { FairShareQueue } from "./fair-share-queue.js";
import { stoppedReason } from "./run-conversion-worker.js";

/** At most this many conversions run at once (each is a worker thread busy on one core); the rest queue. */
export const maxConversionWorkers = 2;

/** The queue's bounds unless told (CONVERT_QUEUE_MAX, CONVERT_QUEUE_PER_USER; docs/uploads.md). */
export const conversionQueueDefaults = { maxWaiting: 3, perUser: 2 } as const;

/**
 * The tool-runner's document conversions: at most `workers` at once (1 unless told, at most 2), the others
 * waiting in a queue shared fairly between users (fair-share-queue.ts) of at most `maxWaiting`, with at most
 * `perUser` of one user's running or waiting; a document past either is answered `failed` with the reason
 * ("conversion queue full …"), so it is stored unconverted. Files that are no document, too large, or not
 * what their name claims are answered at once without queueing. `close()` (at service stop) stops the
 * conversions running and answers the queued ones `failed` with a reason saying so; later calls are answered
 * the same way. No worker outlives its conversion, and none holds the process open.
 */
export class DocumentConverter {
  private readonly stopping = new AbortController();
  private readonly queue: FairShareQueue;
  private readonly running = new Set<Promise<Conversion>>();

  constructor(
    private readonly limits: ConversionLimits,
    options: { workers?: number; maxWaiting?: number; perUser?: number } = {},
  ) {
    this.queue = new FairShareQueue({
      slots: Math.min(Math.max(1, Math.floor(options.workers ?? 1)), maxConversionWorkers),
      maxWaiting: options.maxWaiting ?? conversionQueueDefaults.maxWaiting,
      perUser: options.perUser ?? conversionQueueDefaults.perUser,
    });
  }

  /** Converts `user`'s document when it is their turn (or not at all, when the queue is full). */
  async convert(name: string, content: Uint8Array, user: string): Promise<Conversion> {
    const checked = checkDocument(name, content, this.limits);
    if (checked.kind !== "convert") return checked;
    if (this.stopping.signal.aborted) return { kind: "failed", reason: stoppedReason, format: checked.format };
    const entry = this.queue.enter(user);
    if (!entry.ok) return { kind: "failed", reason: entry.reason, format: checked.format };
    await entry.turn;
    const conversion = convertDocument(name, content, this.limits, this.stopping.signal);
    this.running.add(conversion);
    try {
      return await conversion;
    } finally {
      this.running.delete(conversion);
      // the next waiting one's turn (after close, it fails at once)
      this.queue.leave(user);
    }
  }

  /** Stops every conversion, running or queued; resolves once their workers are gone. */
  async close(): Promise<void> {
    this.stopping.abort();
    await Promise.all([...this.running]);
  }
}
