/**
 * Fault 6 at full size: 300 chat turns at once through the gateway, each with 3 tool calls and 200 ms per
 * model call (the scripted model), on the four services as processes (two tool-runners) and a private
 * nats-server with the permission config. Every turn is checked like the CI test (test/faults/load.test.ts,
 * 60 turns) checks it, and the turn times are reported over the ideal (the model's latency alone).
 *
 *   npm run build && npx tsx bench/load-300.ts [turns]
 *
 * Exits 1 if any turn went wrong.
 */
import { startLoadSystem } from "@agent-orchestrator/testing/faults/load-system";
import { runLoad } from "@agent-orchestrator/testing/faults/run-load";

const turns = Number(process.argv[2] ?? 300);
const latencyMs = 200;

const system = await startLoadSystem(turns, latencyMs);
try {
  // a small warm-up, so the first turns do not pay for the services' cold start
  await runLoad(system.gatewayUrls[0] as string, 10, latencyMs);
  const report = await runLoad(system.gatewayUrls[0] as string, turns, latencyMs);
  const ratio = (ms: number) => `${(ms / report.idealMs).toFixed(2)}×`;
  const rows = [
    ["turns at once", String(report.turns)],
    ["ideal turn (4 model calls × 200 ms)", `${report.idealMs} ms`],
    ["p50 turn", `${Math.round(report.p50Ms)} ms (${ratio(report.p50Ms)} ideal)`],
    ["p99 turn", `${Math.round(report.p99Ms)} ms (${ratio(report.p99Ms)} ideal)`],
    ["slowest turn", `${Math.round(report.maxMs)} ms (${ratio(report.maxMs)} ideal)`],
    ["all turns done in", `${Math.round(report.wallMs)} ms (${(report.turns / (report.wallMs / 1000)).toFixed(0)} turns/s)`],
    ["turns with a problem", String(report.problems.length)],
  ];
  for (const [name, value] of rows) process.stdout.write(`${(name as string).padEnd(38)} ${value}\n`);
  for (const problem of report.problems.slice(0, 20)) process.stdout.write(`  ${problem}\n`);
  process.exitCode = report.problems.length === 0 ? 0 : 1;
} finally {
  await system.stop();
}
