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
import { cpuMs } from "./support/cpu-time.js";
import { formatMs, formatRatio, type MeasureReport, type MeasureRow } from "./support/measure-report.js";
import { summarize } from "./support/stats.js";

const concurrencies = [1, 16, 64];
const modelDelays = [0, 50];
const windowMs = pick(2_000, 700);
const windows = pick(3, 1);
const warmupMs = pick(1_000, 300);

interface WindowResult {
  sessionsPerSecond: number;
  /** CPU of every process involved (this one, nats-server, the service processes), per session */
  cpuMsPerSession: number;
}

/**
 * One window: `concurrency` workers each run sessions back to back until the window closes; sessions
 * still running then are finished and counted, over the time they really took.
 */
async function runWindow(session: () => Promise<unknown>, concurrency: number, durationMs: number, cpuOf: () => number): Promise<WindowResult> {
  const started = performance.now();
  const cpuBefore = cpuOf();
  let completed = 0;
  const worker = async () => {
    while (performance.now() - started < durationMs) {
      await session();
      completed++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { sessionsPerSecond: completed / ((performance.now() - started) / 1000), cpuMsPerSession: (cpuOf() - cpuBefore) / completed };
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
  const servicePids = processes.processes.map((service) => service.child.pid ?? -1);
  const cpuOf = () => cpuMs() + cpuMs(context.nats.pid) + servicePids.reduce((sum, pid) => sum + cpuMs(pid), 0);
  const results: Array<{ modelDelayMs: number; concurrency: number; rates: Record<Side, number>; cpuMsPerSession: Record<Side, number> }> = [];
  try {
    for (const modelDelayMs of modelDelays) {
      responder.delayMs = modelDelayMs;
      for (const concurrency of concurrencies) {
        const windowResults: Record<Side, WindowResult[]> = { inProcess: [], system: [], processes: [] };
        for (const side of Object.keys(sides) as Side[]) await runWindow(sides[side], concurrency, warmupMs, cpuOf);
        for (let window = 0; window < windows; window++) {
          for (const side of Object.keys(sides) as Side[]) {
            windowResults[side].push(await runWindow(sides[side], concurrency, windowMs, cpuOf));
            context.forgetRequests();
          }
        }
        const median = (side: Side, key: keyof WindowResult) => summarize(windowResults[side].map((result) => result[key])).p50;
        results.push({
          modelDelayMs,
          concurrency,
          rates: { inProcess: median("inProcess", "sessionsPerSecond"), system: median("system", "sessionsPerSecond"), processes: median("processes", "sessionsPerSecond") },
          cpuMsPerSession: { inProcess: median("inProcess", "cpuMsPerSession"), system: median("system", "cpuMsPerSession"), processes: median("processes", "cpuMsPerSession") },
        });
      }
    }
  } finally {
    responder.delayMs = 0;
    await processes.stop();
  }

  const rows: MeasureRow[] = results.map(({ modelDelayMs, concurrency, rates }) => {
    const ratio = rates.system / rates.inProcess;
    const ratioProcesses = rates.processes / rates.inProcess;
    const target = modelDelayMs === 50 ? { target: "≥ 0.9×", met: Math.min(ratio, ratioProcesses) >= 0.9 } : {};
    return {
      label: `sessions/s, model ${modelDelayMs} ms, ${concurrency} in flight`,
      baseline: rates.inProcess.toFixed(1),
      system: `${rates.system.toFixed(1)} (one process) / ${rates.processes.toFixed(1)} (4 processes)`,
      result: `${formatRatio(ratio)} / ${formatRatio(ratioProcesses)}`,
      ...target,
    };
  });
  const busiest = results.find((result) => result.modelDelayMs === 0 && result.concurrency === 16);
  if (busiest) {
    const cpu = busiest.cpuMsPerSession;
    rows.push({
      label: "CPU per session, all processes, model 0 ms, 16 in flight",
      baseline: formatMs(cpu.inProcess),
      system: `${formatMs(cpu.system)} (one process) / ${formatMs(cpu.processes)} (4 processes)`,
      result: `${formatRatio(cpu.system / cpu.inProcess)} / ${formatRatio(cpu.processes / cpu.inProcess)}`,
    });
  }
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
      "CPU per session counts this process (clients, scripted model, and the services when in process), nats-server and the four service processes, from /proc at 10 ms resolution; the model and clients cost the same on every side.",
    ],
  };
}
