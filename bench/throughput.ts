/**
 * Measure 5: sessions per second with 1, 16 and 64 sessions in flight, with a zero-latency model and a
 * model that takes 50 ms per call. A session is 2 model calls and 1 tool call. The baseline is the
 * in-process orchestrator (the orchestrator's turn code with the tools called directly); the system is
 * concurrent `POST /api/chat` clients, with the services in this process and as four processes. CPU per
 * session is also taken for each process on its own; with BENCH_PROFILE=1 the four processes are profiled.
 */
import { startSystem as startServiceProcesses } from "@agent-orchestrator/testing/service-processes";
import { serviceNames } from "@agent-orchestrator/shared/wire";
import type { BenchContext } from "./support/bench-context.js";
import { pick, quick } from "./support/bench-settings.js";
import { benchEnv } from "./support/bench-env.js";
import { chatFirstDeltaMs, chatJson } from "./support/gateway-client.js";
import { createInProcessAgent } from "./support/in-process-agent.js";
import { cpuMs } from "./support/cpu-time.js";
import { formatMs, formatRatio, type MeasureReport, type MeasureRow } from "./support/measure-report.js";
import { countRoundTrips, describeRoundTrips, type RoundTrips } from "./support/round-trips.js";
import { monotonicUs, prepareServiceProfiles, profiling } from "./support/service-profiles.js";
import { startSessionFloor } from "./support/session-floor.js";
import { summarize } from "./support/stats.js";

const concurrencies = [1, 16, 64];
const modelDelays = [0, 50];
const windowMs = pick(2_000, 700);
const windows = pick(3, 1);
const warmupMs = pick(1_000, 300);
/** sessions in flight while a session's requests are counted: as many as in the CPU rows, where turns share writes */
const countedConcurrency = 16;

/** CPU used so far by each process involved (this one, nats-server, the service processes), in ms */
type CpuReading = Record<string, number>;

interface WindowResult {
  sessions: number;
  sessionsPerSecond: number;
  /** per session, by process */
  cpuMsPerSession: CpuReading;
}

// the benchmark process: besides the clients and the scripted model, it holds the idle in-process system
const benchProcess = "scripted model and clients";
const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

/**
 * One window: `concurrency` workers each run sessions back to back until the window closes; sessions
 * still running then are finished and counted, over the time they really took.
 */
async function runWindow(session: () => Promise<unknown>, concurrency: number, durationMs: number, cpuOf: () => CpuReading): Promise<WindowResult> {
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
  const cpuAfter = cpuOf();
  const cpuMsPerSession = Object.fromEntries(Object.entries(cpuAfter).map(([name, ms]) => [name, (ms - (cpuBefore[name] ?? 0)) / completed]));
  return { sessions: completed, sessionsPerSecond: completed / ((performance.now() - started) / 1000), cpuMsPerSession };
}

type Side = "inProcess" | "floor" | "system" | "processes";

export async function measureThroughput(context: BenchContext): Promise<MeasureReport> {
  const { system, tree, responder } = context;
  const agent = await createInProcessAgent(system, tree.sessionAgent);
  const body = { agent_id: tree.sessionAgent, message: context.sessionMessage };
  const env = benchEnv({ natsUrl: context.nats.url, modelUrl: context.model.url, bmadRoot: tree.root, outputRoot: context.outputRoot });
  // LOG_LEVEL warn: the harness learns the gateway's URL from its "listening" warning
  const profiles = profiling ? await prepareServiceProfiles() : undefined;
  const processes = await startServiceProcesses({ ...env, LOG_LEVEL: "warn" }, profiles?.nodeArgs);
  // the same sessions behind only the hops a turn cannot avoid (bench/support/distribution-floor.ts)
  const floor = await startSessionFloor(context);
  const sides: Record<Side, () => Promise<unknown>> = {
    inProcess: () => agent.runTurn(context.sessionMessage),
    floor: () => chatFirstDeltaMs(floor.url, body),
    system: () => chatJson(system.gatewayUrl, body),
    processes: () => chatJson(processes.url, body),
  };
  const services = processes.processes.map((service) => ({ name: service.name, pid: service.child.pid ?? -1 }));
  const cpuOf = (): CpuReading => ({
    ...Object.fromEntries(services.map(({ name, pid }) => [name, cpuMs(pid)])),
    "nats-server": cpuMs(context.nats.pid),
    [benchProcess]: cpuMs(),
  });
  const results: Array<{
    modelDelayMs: number;
    concurrency: number;
    rates: Record<Side, number>;
    cpuMsPerSession: Record<Side, number>;
    cpuMsPerSessionByProcess: Record<Side, CpuReading>;
  }> = [];
  let profileFromUs: number | undefined;
  let profileToUs = 0;
  let requests: { kinds: RoundTrips; sessions: number } | undefined;
  try {
    for (const modelDelayMs of modelDelays) {
      responder.delayMs = modelDelayMs;
      for (const concurrency of concurrencies) {
        const windowResults: Record<Side, WindowResult[]> = { inProcess: [], floor: [], system: [], processes: [] };
        for (const side of Object.keys(sides) as Side[]) await runWindow(sides[side], concurrency, warmupMs, cpuOf);
        for (let window = 0; window < windows; window++) {
          for (const side of Object.keys(sides) as Side[]) {
            profileFromUs ??= monotonicUs();
            windowResults[side].push(await runWindow(sides[side], concurrency, windowMs, cpuOf));
            profileToUs = monotonicUs();
            context.forgetRequests();
          }
        }
        const medianOf = (side: Side, figure: (result: WindowResult) => number) => summarize(windowResults[side].map(figure)).p50;
        const perSide = (figure: (result: WindowResult) => number) =>
          Object.fromEntries((Object.keys(sides) as Side[]).map((side) => [side, medianOf(side, figure)])) as Record<Side, number>;
        const processNames = Object.keys(cpuOf());
        results.push({
          modelDelayMs,
          concurrency,
          rates: perSide((result) => result.sessionsPerSecond),
          cpuMsPerSession: perSide((result) => sum(Object.values(result.cpuMsPerSession))),
          cpuMsPerSessionByProcess: Object.fromEntries(
            (Object.keys(sides) as Side[]).map((side) => [side, Object.fromEntries(processNames.map((name) => [name, medianOf(side, (result) => result.cpuMsPerSession[name] ?? 0)]))]),
          ) as Record<Side, CpuReading>,
        });
      }
    }
    // what a session sends, counted apart from the windows whose CPU is taken (the count wraps every request)
    responder.delayMs = 0;
    const counter = await countRoundTrips(context.nats.url, serviceNames.orchestrator);
    counter.nextRun();
    const counted = await runWindow(sides.system, countedConcurrency, windowMs, cpuOf).finally(() => counter.stop());
    requests = { kinds: counter.kinds(), sessions: counted.sessions };
  } finally {
    responder.delayMs = 0;
    await processes.stop();
    await floor.stop();
  }
  const profileFiles = profiles
    ? await profiles.summarize(
        services,
        { fromUs: profileFromUs ?? 0, toUs: profileToUs },
        `Taken by \`BENCH_PROFILE=1${quick ? " BENCH_QUICK=1" : ""}\` in measure 5 (throughput), the four services as processes under \`node --cpu-prof\`, ` +
          `from its first measured window to its last (model 0 and 50 ms per call, 1, 16 and 64 sessions in flight, and the warm-ups between; the services idle while the other sides run).`,
      )
    : [];

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
    // both system variants set against `baseMs`: met only when both are within 1.5× of it
    const cpuAgainst = (label: string, baseMs: number): MeasureRow => ({
      label,
      baseline: formatMs(baseMs),
      system: `${formatMs(cpu.system)} (one process) / ${formatMs(cpu.processes)} (4 processes)`,
      result: `${formatRatio(cpu.system / baseMs)} / ${formatRatio(cpu.processes / baseMs)}`,
      target: "≤ 1.5×",
      met: Math.max(cpu.system, cpu.processes) / baseMs <= 1.5,
    });
    rows.push(cpuAgainst("CPU per session, all processes, model 0 ms, 16 in flight", cpu.inProcess));
    rows.push({
      label: "CPU per session: the floor, the same sessions behind only the unavoidable hops (this process and nats-server), model 0 ms, 16 in flight",
      baseline: formatMs(cpu.inProcess),
      system: formatMs(cpu.floor),
      result: formatRatio(cpu.floor / cpu.inProcess),
    });
    rows.push(cpuAgainst("CPU per session against the floor's (issue 38 item 8), model 0 ms, 16 in flight", cpu.floor));
    if (requests) {
      rows.push({
        label: `NATS requests of the orchestrator per session, by kind (one process, model 0 ms, ${countedConcurrency} in flight)`,
        baseline: "—",
        system: describeRoundTrips(requests.kinds, requests.sessions),
        result: `${requests.sessions} sessions`,
      });
    }
    const byProcess = busiest.cpuMsPerSessionByProcess.processes;
    for (const name of ["gateway", "orchestrator", "tool-runner", "registry", "nats-server", benchProcess]) {
      const ms = byProcess[name] ?? Number.NaN;
      rows.push({
        label: `CPU per session: ${name} (4 processes, model 0 ms, 16 in flight)`,
        baseline: "—",
        system: formatMs(ms),
        result: `${((ms / cpu.processes) * 100).toFixed(0)} % of the total`,
      });
    }
  }
  return {
    id: 5,
    title: "throughput",
    method:
      `Sessions (2 model calls, 1 read_file) per second with 1, 16 and 64 in flight, model at 0 and 50 ms per call: in-process ` +
      `orchestrator (baseline) vs POST /api/chat with the services in this process and as four processes (RUN_CONCURRENCY 64), and ` +
      `the floor (the in-process loop behind only the unavoidable hops: a JetStream work queue, the tool call over NATS, a stored ` +
      `event; its worker runs 64 at once); ` +
      `${windows} windows of ${windowMs / 1000} s per side after a ${warmupMs / 1000} s warm-up, sides alternating; the median window is reported.`,
    rows,
    details: { results, windowMs, windows, warmupMs, profiles: profileFiles },
    notes: [
      "The scripted model and the benchmark's clients run in the benchmark process, for the baseline and the system alike; on this 2-core machine they compete for CPU with the services and nats-server.",
      "Met only when both system variants reach the target.",
      "CPU per session counts this process (clients, scripted model, and the services when in process), nats-server and the four service processes, from /proc at 10 ms resolution; the model and clients cost the same on every side.",
      "The lines per process split the 4-process total; each is the median over the windows, so they need not add up to it exactly.",
      ...(profiles ? [`BENCH_PROFILE=1: the service processes ran under node --cpu-prof, which slows them; flame summaries in ${profileFiles.join(", ")}.`] : []),
    ],
  };
}
