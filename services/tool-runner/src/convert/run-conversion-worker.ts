import { Worker } from "node:worker_threads";
import { z } from "zod";
import { conversionWorkerCode } from "./conversion-worker-code.js";
import type { ConversionLimits } from "./conversion.js";
import type { DocumentFormat } from "./document-format.js";
import { libraryUrls } from "./library-urls.js";
import { readableReason } from "./readable-reason.js";

export interface WorkerTask {
  format: DocumentFormat;
  content: Uint8Array;
  limits: ConversionLimits;
  /** stops the conversion (the service is stopping) */
  signal?: AbortSignal | undefined;
}

export type WorkerOutcome = { ok: true; markdown: string; cut: boolean } | { ok: false; reason: string };

const WorkerReply = z.union([
  z.object({ markdown: z.string(), cut: z.boolean() }),
  z.object({ failure: z.string() }),
  z.object({ error: z.object({ name: z.string(), message: z.string() }) }),
]);

export const stoppedReason = "conversion was stopped: the service is stopping";

/**
 * Converts one document in a worker thread of its own (conversion-worker-code.ts), so a hostile or broken
 * document costs that thread, never the tool-runner: its heap is bounded (`heapMb`; a worker out of memory
 * stops alone), its wall time too (`timeoutMs`, then it is terminated), and nothing it did lives on into the
 * next document. Resolves once the worker is gone, never rejects. The worker is `unref`ed, so it never holds the
 * process open; the timer is not, so a one-off caller (a script) stays up for the answer, at most `timeoutMs`.
 */
export function runConversionWorker(task: WorkerTask): Promise<WorkerOutcome> {
  const { format, content, limits, signal } = task;
  if (signal?.aborted) return Promise.resolve({ ok: false, reason: stoppedReason });
  return new Promise((resolve) => {
    const worker = new Worker(conversionWorkerCode, {
      eval: true,
      // no secrets of the environment, no loader or inspector flags of the process (vitest's, tsx's)
      env: {},
      execArgv: [],
      workerData: { format, bytes: content, maxOutputBytes: limits.maxOutputBytes, libraries: libraryUrls() },
      resourceLimits: { maxOldGenerationSizeMb: limits.heapMb },
    });
    let settled = false;
    const finish = (outcome: WorkerOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", stop);
      // answered only once the thread is gone: a queue's next worker never overlaps a dying one
      void worker.terminate().finally(() => resolve(outcome));
    };
    const stop = (): void => finish({ ok: false, reason: stoppedReason });
    worker.on("message", (reply: unknown) => finish(outcomeOf(format, reply)));
    worker.on("error", (error: Error & { code?: string }) => finish({ ok: false, reason: crashReason(format, error, limits.heapMb) }));
    worker.on("exit", () => finish({ ok: false, reason: "the converter stopped before it answered" }));
    // after the listeners: adding a "message" listener refs the worker again (Node 20)
    worker.unref();
    const timer = setTimeout(() => finish({ ok: false, reason: `conversion took longer than ${seconds(limits.timeoutMs)} s` }), limits.timeoutMs);
    signal?.addEventListener("abort", stop, { once: true });
  });
}

function outcomeOf(format: DocumentFormat, reply: unknown): WorkerOutcome {
  const parsed = WorkerReply.safeParse(reply);
  if (!parsed.success) return { ok: false, reason: "the converter answered something unexpected" };
  const value = parsed.data;
  if ("markdown" in value) return { ok: true, markdown: value.markdown, cut: value.cut };
  if ("failure" in value) return { ok: false, reason: value.failure };
  return { ok: false, reason: readableReason(format, value.error) };
}

/** An error the worker did not catch: out of memory, or one a library threw outside the conversion's promise. */
function crashReason(format: DocumentFormat, error: Error & { code?: string }, heapMb: number): string {
  if (error.code === "ERR_WORKER_OUT_OF_MEMORY") return `conversion needed more memory than its limit of ${heapMb} MB`;
  return readableReason(format, { name: String(error.name), message: String(error.message) });
}

function seconds(milliseconds: number): string {
  return String(Number((milliseconds / 1000).toFixed(3)));
}
