import { Worker } from "node:worker_threads";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { patternWorkerCode } from "./pattern-worker-code.js";

/** A regular expression as it crosses to the worker. */
export interface PatternSource {
  source: string;
  flags: string;
}

/** Which paths the first pattern that matches any of them matches. */
export interface PathsTask {
  patterns: PatternSource[];
  paths: string[];
}

export interface PathsResult {
  matched: number[];
  /** the index of the pattern that matched, -1 when none did */
  which: number;
}

/** One file of a scan: its text, or its bytes (which the worker checks and decodes; copied, never changed). */
export interface ScanFile {
  text?: string;
  bytes?: Uint8Array;
  /** the error the call fails with when this file takes too long */
  tooLong: () => AppError;
}

/** Files searched with one pattern. */
export interface ScanTask extends PatternSource {
  /** the text of a case-sensitive literal pattern, searched in the bytes directly */
  literal?: string;
  maxHits: number;
  maxChars: number;
  files: ScanFile[];
}

/** One line a pattern matched. */
export interface LineHit {
  line: number;
  text: string;
}

export type ScanResult = { binary: true } | { binary?: undefined; hits: LineHit[]; more: boolean };

/** How long one file (or one paths task) may run before the worker is stopped, and how often that is checked. */
export interface WatchdogLimits {
  stallMs: number;
  checkEveryMs: number;
}

export const watchdogLimits: WatchdogLimits = { stallMs: 400, checkEveryMs: 25 };

/** Bytes of the shared buffers a batch of files is copied into; a larger batch gets a buffer of its own. */
export const slabBytes = 1024 * 1024;
const maxSlabs = 4;
// room for a few files of READ_MAX_BYTES (at most 64 MiB) as text, and their hits
const workerHeapMb = 512;

interface Pending {
  resolve(reply: Record<string, unknown>): void;
  reject(error: unknown): void;
  /** the units of this message the watchdog may stop, and the shared buffer it holds */
  units: number[];
  slab?: SharedArrayBuffer | undefined;
}

/**
 * One worker thread running the model's patterns (pattern-worker-code.ts), so a catastrophic regular
 * expression costs that thread, never the tool-runner's event loop. Messages queue in the worker in the order
 * sent; a watchdog reads the unit (one file, or one paths task) the worker is on from shared memory and
 * terminates the thread when that unit has run longer than `stallMs`: every message still waiting then fails
 * with that unit's `tooLong` error, and the worker is `broken` (its pool starts a fresh one). The bytes of a
 * batch are copied into one of a few shared buffers that are reused, so handing 50 MB over costs a copy into
 * memory already mapped and no transfer. The thread is `unref`ed, so it never holds the process open.
 */
export class PatternWorker {
  private readonly worker: Worker;
  private readonly state = new BigInt64Array(new SharedArrayBuffer(16));
  private readonly pending = new Map<number, Pending>();
  private readonly tooLong = new Map<number, () => AppError>();
  private readonly slabs: SharedArrayBuffer[] = [];
  private slabsMade = 0;
  private nextId = 0;
  private watchdog: NodeJS.Timeout | undefined;
  private failed = false;

  constructor(private readonly limits: WatchdogLimits = watchdogLimits) {
    this.state[0] = -1n;
    // a heap of its own within bounds: a worker out of memory stops alone (an `error`), never the process
    this.worker = new Worker(patternWorkerCode, { eval: true, workerData: { state: this.state.buffer }, resourceLimits: { maxOldGenerationSizeMb: workerHeapMb } });
    this.worker.on("message", (reply: Record<string, unknown>) => this.settle(reply));
    this.worker.on("error", (error) => this.fail(() => new AppError("INTERNAL", "The pattern worker failed", { cause: error })));
    this.worker.on("exit", () => this.fail(() => new AppError("INTERNAL", "The pattern worker stopped")));
    // after the listeners: adding a "message" listener refs the worker again (Node 20)
    this.worker.unref();
  }

  /** True once the worker was stopped or died: it takes no more tasks. */
  get broken(): boolean {
    return this.failed;
  }

  async paths(task: PathsTask, tooLong: () => AppError): Promise<PathsResult> {
    const id = this.nextId++;
    this.tooLong.set(id, tooLong);
    const reply = await this.send({ kind: "paths", id, ...task }, { units: [id] });
    return reply as unknown as PathsResult;
  }

  /** Searches a batch of files, one result per file in their order. */
  async scan(task: ScanTask): Promise<ScanResult[]> {
    const id = this.nextId++;
    const units = task.files.map((file) => {
      const unit = this.nextId++;
      this.tooLong.set(unit, file.tooLong);
      return unit;
    });
    const total = task.files.reduce((sum, file) => sum + (file.bytes?.byteLength ?? 0), 0);
    const slab = total > 0 && total <= slabBytes ? this.takeSlab() : undefined;
    const buffer = slab ?? new ArrayBuffer(total);
    const into = new Uint8Array(buffer);
    let offset = 0;
    const files = task.files.map((file, index) => {
      const unit = units[index] as number;
      if (!file.bytes) return { id: unit, text: file.text ?? "" };
      into.set(file.bytes, offset);
      offset += file.bytes.byteLength;
      return { id: unit, offset: offset - file.bytes.byteLength, length: file.bytes.byteLength };
    });
    const { files: _files, ...pattern } = task;
    const message = { kind: "scan", id, ...pattern, buffer, files };
    const reply = await this.send(message, { units, slab }, slab || total === 0 ? [] : [buffer as ArrayBuffer]);
    return reply["results"] as ScanResult[];
  }

  private takeSlab(): SharedArrayBuffer | undefined {
    const free = this.slabs.pop();
    if (free || this.slabsMade === maxSlabs) return free;
    this.slabsMade += 1;
    return new SharedArrayBuffer(slabBytes);
  }

  private send(message: { id: number } & Record<string, unknown>, held: Omit<Pending, "resolve" | "reject">, transfer: ArrayBuffer[] = []): Promise<Record<string, unknown>> {
    if (this.failed) return Promise.reject(new AppError("INTERNAL", "The pattern worker stopped"));
    return new Promise((resolve, reject) => {
      this.pending.set(message.id, { resolve, reject, ...held });
      this.worker.postMessage(message, transfer);
      this.watchdog ??= setInterval(() => this.check(), this.limits.checkEveryMs).unref();
    });
  }

  private settle(reply: Record<string, unknown>): void {
    const id = reply["id"] as number;
    const waiting = this.pending.get(id);
    if (!waiting) return;
    this.pending.delete(id);
    for (const unit of waiting.units) this.tooLong.delete(unit);
    if (waiting.slab) this.slabs.push(waiting.slab);
    if (this.pending.size === 0) this.stopWatchdog();
    const error = reply["error"];
    if (typeof error === "string") waiting.reject(new AppError("INTERNAL", "The pattern worker failed", { detail: { error } }));
    else waiting.resolve(reply);
  }

  private check(): void {
    const running = Number(Atomics.load(this.state, 0));
    const startedAt = Number(Atomics.load(this.state, 1));
    const tooLong = this.tooLong.get(running);
    if (!tooLong || Date.now() - startedAt <= this.limits.stallMs) return;
    this.fail(tooLong);
    void this.worker.terminate();
  }

  /** Fails every waiting message with `cause`: what was queued behind a unit that ran too long stops with it. */
  private fail(cause: () => AppError): void {
    if (this.failed) return;
    this.failed = true;
    this.stopWatchdog();
    for (const task of this.pending.values()) task.reject(cause());
    this.pending.clear();
    this.tooLong.clear();
  }

  private stopWatchdog(): void {
    clearInterval(this.watchdog);
    this.watchdog = undefined;
  }
}
