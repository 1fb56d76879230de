/**
 * `npm run bench`: every measure in one run (what distribution costs per tool call, before the first token, per
 * session, against the OpenAI Agents SDK and in throughput and CPU; registry discovery; lazy loading; starting a
 * workflow; idle-session memory; recovery after a nats-server restart; load; project files in the store; the file
 * tools at BMAD's grain; uploads; a huge model answer; listings beside a user with many projects; compaction over a long workflow; a repository's working tree as it grows: bench/README.md lists them), against one private nats-server and the scripted model, so
 * that ratios compare figures taken minutes apart on the same machine. Prints the table and
 * writes a dated JSON file to bench/results/ (git-ignored); a full run of every measure also writes
 * bench/results/latest.json, the one that is committed.
 *
 * BENCH_QUICK=1 runs far fewer samples (for development); BENCH_ONLY=1,3 runs only those measures; BENCH_LARGE=1
 * adds measure 21 (a repository of 1 GB, minutes and about 6 GB of disk);
 * BENCH_PROFILE=1 also writes flame summaries of the service processes of measure 5 to bench/profiles/.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { quick } from "./support/bench-settings.js";
import { startBenchContext, type BenchContext } from "./support/bench-context.js";
import type { MeasureReport } from "./support/measure-report.js";
import { formatResultsTable } from "./support/results-table.js";
import { collectVersions, describeMachine } from "./support/run-environment.js";
import { profiling } from "./support/service-profiles.js";
import { measureAgentsSdkComparison } from "./agents-sdk-comparison.js";
import { measureCompaction } from "./compaction.js";
import { measureConcurrentLoad } from "./concurrent-load.js";
import { measureFileTools } from "./file-tools.js";
import { measureIdleSessionMemory } from "./idle-session-memory.js";
import { measureLargeRepository } from "./large-repository.js";
import { measureLazyLoading } from "./lazy-loading.js";
import { measureModelOutputMemory } from "./model-output-memory.js";
import { measureProjectFiles } from "./project-files.js";
import { measureRepositories } from "./repositories.js";
import { measureProjectListings } from "./project-listings.js";
import { measurePromptCache } from "./prompt-cache.js";
import { measureRecovery } from "./recovery.js";
import { measureRegistry } from "./registry-discovery.js";
import { measureSessionEndToEnd } from "./session-end-to-end.js";
import { measureThroughput } from "./throughput.js";
import { measureTimeToFirstToken } from "./time-to-first-token.js";
import { measureToolCallOverhead } from "./tool-call-overhead.js";
import { measureUploads } from "./uploads.js";
import { measureWorkflowStart } from "./workflow-start.js";

const measures: Array<{ id: number; run: (context: BenchContext) => Promise<MeasureReport> }> = [
  { id: 1, run: measureToolCallOverhead },
  { id: 2, run: measureTimeToFirstToken },
  { id: 3, run: measureSessionEndToEnd },
  { id: 4, run: measureAgentsSdkComparison },
  { id: 5, run: measureThroughput },
  { id: 6, run: measureRegistry },
  { id: 7, run: measureLazyLoading },
  { id: 8, run: measureWorkflowStart },
  { id: 9, run: measureIdleSessionMemory },
  { id: 11, run: measureConcurrentLoad },
  { id: 12, run: measureProjectFiles },
  { id: 13, run: measureFileTools },
  { id: 14, run: measureUploads },
  { id: 16, run: measureModelOutputMemory },
  { id: 17, run: measurePromptCache },
  { id: 18, run: measureProjectListings },
  { id: 19, run: measureCompaction },
  { id: 20, run: measureRepositories },
  // opt-in (BENCH_LARGE=1): a 1 GB repository takes minutes and about 6 GB of disk
  ...(process.env["BENCH_LARGE"] === "1" ? [{ id: 21, run: measureLargeRepository }] : []),
  // last: it restarts the server under everything
  { id: 10, run: measureRecovery },
];

function failedReport(id: number, error: unknown): MeasureReport {
  const message = error instanceof Error ? error.message : String(error);
  return { id, title: "FAILED", method: message, rows: [{ label: message, baseline: "", system: "", result: "failed", met: false }], details: {}, notes: [] };
}

const only = new Set((process.env["BENCH_ONLY"] ?? "").split(",").filter((id) => id.trim() !== "").map(Number));
const startedAt = new Date();
const machineAtStart = describeMachine();
const versions = collectVersions();
const context = await startBenchContext();
const reports: MeasureReport[] = [];
try {
  for (const measure of measures) {
    if (only.size > 0 && !only.has(measure.id)) continue;
    const started = performance.now();
    process.stderr.write(`measure ${measure.id} …`);
    try {
      context.responder.toolFailures = 0;
      const report = await measure.run(context);
      if (context.responder.toolFailures > 0) report.notes.push(`WARNING: ${context.responder.toolFailures} tool calls failed during this measure.`);
      reports.push(report);
    } catch (error) {
      // one broken measure must not cost the others; the run still fails at the end
      process.exitCode = 1;
      reports.push(failedReport(measure.id, error));
    }
    process.stderr.write(` ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  }
} finally {
  await context.stop();
}

const results = {
  startedAt: startedAt.toISOString(),
  durationS: Math.round((Date.now() - startedAt.getTime()) / 1000),
  quick,
  command: `${profiling ? "BENCH_PROFILE=1 " : ""}${quick ? "BENCH_QUICK=1 " : ""}npm run bench`,
  machine: { ...machineAtStart, loadAverage1mAtEnd: describeMachine().loadAverage1m },
  versions,
  measures: reports,
};
console.log(formatResultsTable(results));
const folder = fileURLToPath(new URL("./results/", import.meta.url));
await mkdir(folder, { recursive: true });
const json = `${JSON.stringify(results, null, 2)}\n`;
// a profiled run is slower in measure 5, so its figures never become the committed ones
if (!quick && !profiling && only.size === 0 && process.exitCode !== 1) await writeFile(`${folder}latest.json`, json);
await writeFile(`${folder}${results.startedAt.replace(/[:.]/g, "-")}.json`, json);
