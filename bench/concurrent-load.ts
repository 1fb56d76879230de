/**
 * Measure 11: the load test's turns, many at once, against the ideal. A turn is 3 tool calls and 4 model
 * calls of 200 ms each, so it cannot take less than 800 ms; the measure reports how much longer the
 * system makes it with 60 turns in flight. The system is the fault tests' load system (test/faults): the
 * four services as processes (two tool-runners, as compose runs them) on a nats-server of their own, with
 * every turn's events checked as the load test checks them.
 */
import { startLoadSystem } from "@agent-orchestrator/testing/faults/load-system";
import { runLoad } from "@agent-orchestrator/testing/faults/run-load";
import { modelCallsPerLoadTurn } from "@agent-orchestrator/testing/faults/load-responder";
import { pick } from "./support/bench-settings.js";
import { formatMs, formatRatio, type MeasureReport, type MeasureRow } from "./support/measure-report.js";
import { summarize } from "./support/stats.js";

// the load target's figure; a round takes a few seconds, so the quick run keeps it too
const turns = 60;
const rounds = pick(3, 1);
const warmupTurns = 10;
const latencyMs = 200;
const target = 1.5;

export async function measureConcurrentLoad(): Promise<MeasureReport> {
  const idealMs = latencyMs * modelCallsPerLoadTurn;
  const system = await startLoadSystem(turns, latencyMs);
  const turnMs: number[] = [];
  const problems: string[] = [];
  const wallMs: number[] = [];
  try {
    const gatewayUrl = system.gatewayUrls[0] as string;
    // the first turns pay for the services' cold start (JIT, connections, the registry's first reads)
    await runLoad(gatewayUrl, warmupTurns, latencyMs);
    for (let round = 0; round < rounds; round++) {
      const report = await runLoad(gatewayUrl, turns, latencyMs);
      turnMs.push(...report.turnMs);
      problems.push(...report.problems);
      wallMs.push(report.wallMs);
    }
  } finally {
    await system.stop();
  }
  const summary = summarize(turnMs);
  const row = (label: string, ms: number, withTarget: boolean): MeasureRow => ({
    label: `${turns} turns at once, model ${latencyMs} ms per call, ${label}`,
    baseline: `${formatMs(idealMs)} (ideal)`,
    system: formatMs(ms),
    result: formatRatio(ms / idealMs),
    ...(withTarget ? { target: `≤ ${target}×`, met: ms / idealMs <= target && problems.length === 0 } : {}),
  });
  return {
    id: 11,
    title: "load",
    method:
      `${turns} chat turns at once through the gateway as SSE, each 3 tool calls (save, read back, list) and ${modelCallsPerLoadTurn} model calls of ${latencyMs} ms, ` +
      `on the four services as processes (two tool-runners) with their own nats-server; ${rounds} round(s) after a warm-up of ${warmupTurns} turns, ` +
      `every turn's time pooled. The baseline is the ideal turn: the model's latency alone.`,
    rows: [row("p50", summary.p50, true), row("p99", summary.p99, false)],
    details: { turns, rounds, warmupTurns, latencyMs, idealMs, turnMs: summary, wallMs, problems: problems.slice(0, 20) },
    notes: [
      "The scripted model runs in the benchmark process and answers every call after the same delay; what a turn takes beyond the ideal is the system's own time, queued behind the other turns on this machine's 2 cores.",
      ...(problems.length > 0 ? [`WARNING: ${problems.length} turns went wrong (the target counts as missed), e.g. ${problems.slice(0, 3).join("; ")}`] : []),
    ],
  };
}
