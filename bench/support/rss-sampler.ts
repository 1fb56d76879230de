import { readFileSync } from "node:fs";
import { once } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import { Worker } from "node:worker_threads";

/** Resident set sizes of named processes over a window, in KiB. */
export interface RssTrace {
  /** per process: the largest VmRSS seen in the window */
  peakKiB: Record<string, number>;
  /** per process: the last VmRSS read, when the window closed */
  lastKiB: Record<string, number>;
  samples: number;
  /** the longest time between two samples: a peak shorter than this can be missed */
  maxGapMs: number;
}

/** A sampling window that is running; `stop` closes it and hands back what it saw. */
export interface RssSampler {
  stop(): Promise<RssTrace>;
}

/** VmRSS of a process (Linux), in KiB, from /proc/<pid>/status. */
export function rssKiB(pid: number): number {
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!match) throw new Error(`no VmRSS in /proc/${pid}/status (has the process exited?)`);
  return Number(match[1]);
}

// Plain JavaScript, evaluated in a worker thread: its timer keeps its pace while the benchmark's own event loop
// is busy writing an upload, so the sampling interval does not depend on the client's load.
const samplerSource = `
const { parentPort, workerData } = require("node:worker_threads");
const { readFileSync } = require("node:fs");
const { pids, intervalMs } = workerData;
const peakKiB = {};
const lastKiB = {};
let samples = 0;
let maxGapMs = 0;
let previous = performance.now();
const sample = () => {
  const now = performance.now();
  if (samples > 0) maxGapMs = Math.max(maxGapMs, now - previous);
  previous = now;
  for (const [name, pid] of Object.entries(pids)) {
    let text;
    try { text = readFileSync("/proc/" + pid + "/status", "utf8"); } catch { continue; }
    const match = /^VmRSS:\\s+(\\d+)\\s+kB$/m.exec(text);
    if (!match) continue;
    const kib = Number(match[1]);
    lastKiB[name] = kib;
    peakKiB[name] = Math.max(peakKiB[name] ?? 0, kib);
  }
  samples += 1;
};
sample();
const timer = setInterval(sample, intervalMs);
parentPort.once("message", () => {
  clearInterval(timer);
  sample();
  parentPort.postMessage({ peakKiB, lastKiB, samples, maxGapMs });
});
`;

/**
 * Starts reading VmRSS of every process in `pids` every `intervalMs` (from a worker thread of this process)
 * until `stop`, keeping each one's peak. Resolves once the first sample is taken.
 */
export async function startRssSampler(pids: Record<string, number>, intervalMs = 20): Promise<RssSampler> {
  const worker = new Worker(samplerSource, { eval: true, workerData: { pids, intervalMs } });
  await once(worker, "online");
  return {
    async stop() {
      const answer = once(worker, "message");
      worker.postMessage("stop");
      const [trace] = (await answer) as [RssTrace];
      await worker.terminate();
      return trace;
    },
  };
}

/**
 * Waits until no process in `pids` has moved its VmRSS by more than `toleranceKiB` for `windowMs` (read every
 * 250 ms), or `maxMs` passed; returns the time waited.
 */
export async function waitForRestingRss(pids: Record<string, number>, rest: { windowMs: number; toleranceKiB: number; maxMs: number }): Promise<number> {
  const started = performance.now();
  const readings: Array<{ at: number; kib: number[] }> = [];
  for (;;) {
    const at = performance.now();
    readings.push({ at, kib: Object.values(pids).map(rssKiB) });
    const window = readings.filter((reading) => reading.at >= at - rest.windowMs);
    const still = Object.keys(pids).every((_name, index) => {
      const values = window.map((reading) => reading.kib[index] ?? 0);
      return Math.max(...values) - Math.min(...values) <= rest.toleranceKiB;
    });
    if ((still && at - started >= rest.windowMs) || at - started >= rest.maxMs) return at - started;
    await sleep(250);
  }
}

/** VmHWM of a process (Linux), in KiB: the highest resident set it has had since it started. */
export function peakRssKiB(pid: number): number {
  const match = /^VmHWM:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!match) throw new Error(`no VmHWM in /proc/${pid}/status (has the process exited?)`);
  return Number(match[1]);
}
