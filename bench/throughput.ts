/**
 * Measure 5: sessions per second with 1, 16 and 64 sessions in flight, with a zero-latency model and a
 * model that takes 50 ms per call. A session is 2 model calls and 1 tool call. The baseline is the
 * in-process orchestrator (the orchestrator's turn code with the tools called directly); the system is
 * concurrent `POST /api/chat` clients, with the services in this process and as four processes.
 */
import { startSystem as startServiceProcesses } from "../test/support/service-processes.js";
import type { BenchContext } from "./support/bench-context.js";
import { pick } from "./support/bench-settings.js";
import { benchEnv } from "./support/bench-system.js";
import { chatJson } from "./support/gateway-client.js";
import { createInProcessAgent } from "./support/in-process-agent.js";
import { formatRatio, type MeasureReport, type MeasureRow } from "./support/measure-report.js";
import { summarize } from "./support/stats.js";

const concurrencies = [1, 16, 64];
const modelDelays = [0, 50];
const windowMs = pick(2_000, 700);
const windows = pick(2, 1);
const warmupMs = pick(1_000, 300);

/**
 * Sessions per second over one window: `concurrency` workers each run sessions back to back until the
 * window closes; sessions still running then are finished and counted, over the time they really took.
 */
async function sessionsPerSecond(session: () => Promise<unknown>, concurrency: number, durationMs: number): Promise<number> {
  const started = performance.now();
  let completed = 0;
  const worker = async () => {
    while (performance.now() - started < durationMs) {
      await session();
      completed++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return completed / ((performance.now() - started) / 1000);
}

type Side = "inProcess" | "system" | "processes";

export async function measureThroughput(context: BenchContext): Promise<MeasureReport> {
  const { system, tree, responder } = context;
  const agent = await createInProcessAgent(system, tree.sessionAgent);
  const body = { agent_id: tree.sessionAgent, message: context.sessionMessage };
  const env = benchEnv({ natsUrl: context.nats.url, modelUrl: context.model.url, bmadRoot: tree.root, outputRoot: context.outputRoot });
  // LOG_LEVEL warn: the harness learns the gateway's URL from its "listening" warning
  const processes = await startServiceProcesses({ ...env, LOG_LEVEL: "warn" });
  const sides: Record<Side, () => Promise<unknown>> = {
    inProcess: () => agent.runTurn(context.sessionMessage),
    system: () => chatJson(system.gatewayUrl, body),
    processes: () => chatJson(processes.url, body),
  };
  const results: Array<{ modelDelayMs: number; concurrency: number } & Record<Side, number>> = [];
  try {
    for (const modelDelayMs of modelDelays) {
      responder.delayMs = modelDelayMs;
      for (const concurrency of concurrencies) {
        const rates: Record<Side, number[]> = { inProcess: [], system: [], processes: [] };
        for (const side of Object.keys(sides) as Side[]) await sessionsPerSecond(sides[side], concurrency, warmupMs);
        for (let window = 0; window < windows; window++) {
          for (const side of Object.keys(sides) as Side[]) {
            rates[side].push(await sessionsPerSecond(sides[side], concurrency, windowMs));
            context.forgetRequests();
          }
        }
        results.push({
          modelDelayMs,
          concurrency,
          inProcess: summarize(rates.inProcess).p50,
          system: summarize(rates.system).p50,
          processes: summarize(rates.processes).p50,
        });
      }
    }
  } finally {
    responder.delayMs = 0;
    await processes.stop();
  }

  const rows: MeasureRow[] = results.map((result) => {
    const ratio = result.system / result.inProcess;
    const ratioProcesses = result.processes / result.inProcess;
    const target = result.modelDelayMs === 50 ? { target: "≥ 0.9×", met: Math.min(ratio, ratioProcesses) >= 0.9 } : {};
    return {
      label: `sessions/s, model ${result.modelDelayMs} ms, ${result.concurrency} in flight`,
      baseline: result.inProcess.toFixed(1),
      system: `${result.system.toFixed(1)} (one process) / ${result.processes.toFixed(1)} (4 processes)`,
      result: `${formatRatio(ratio)} / ${formatRatio(ratioProcesses)}`,
      ...target,
    };
  });
  return {
    id: 5,
    title: "throughput",
    method:
      `Sessions (2 model calls, 1 read_file) per second with 1, 16 and 64 in flight, model at 0 and 50 ms per call: in-process ` +
      `orchestrator (baseline) vs POST /api/chat with the services in this process and as four processes (RUN_CONCURRENCY 64); ` +
      `${windows} windows of ${windowMs / 1000} s per side after a ${warmupMs / 1000} s warm-up, sides alternating; the median window is reported.`,
    rows,
    details: { results, windowMs, windows, warmupMs },
    notes: [
      "The scripted model and the benchmark's clients run in the benchmark process, for the baseline and the system alike; on this 2-core machine they compete for CPU with the services and nats-server.",
      "Met only when both system variants reach the target.",
    ],
  };
}
