/**
 * Measure 9: the orchestrator's memory per 1,000 idle sessions. Sessions live in JetStream KV, so an
 * orchestrator should hold nothing for a session whose turn is over. The orchestrator runs alone in a
 * child process (the other services in this process, on their own prefix); its memory is read after full
 * garbage collections before and after each batch of completed sessions.
 */
import type { BenchContext } from "./support/bench-context.js";
import { pick } from "./support/bench-settings.js";
import { chatJson } from "./support/gateway-client.js";
import type { MeasureReport } from "./support/measure-report.js";
import { startOrchestratorProcess } from "./support/orchestrator-process.js";

const batch = pick(1_000, 200);
const batches = 2;
const warmupSessions = pick(200, 50);
const inFlight = 16;
const mebibyte = 1024 * 1024;

export async function measureIdleSessionMemory(context: BenchContext): Promise<MeasureReport> {
  const { tree, responder } = context;
  responder.delayMs = 0;
  const prefix = "memory.";
  const system = await context.startSystem(prefix, "external");
  const orchestrator = await startOrchestratorProcess({ ...system.env, BENCH_PREFIX: prefix });
  const body = { agent_id: tree.sessionAgent, message: context.sessionMessage };
  const runSessions = async (count: number) => {
    let next = 0;
    const worker = async () => {
      while (next < count) {
        next++;
        await chatJson(system.gatewayUrl, body);
      }
    };
    await Promise.all(Array.from({ length: inFlight }, worker));
    context.forgetRequests();
  };
  const readings: Array<{ sessions: number; heapUsedMiB: number; rssMiB: number }> = [];
  const read = async (sessions: number) => {
    const usage = await orchestrator.memory();
    readings.push({ sessions, heapUsedMiB: usage.heapUsed / mebibyte, rssMiB: usage.rss / mebibyte });
  };
  try {
    await runSessions(warmupSessions);
    await read(0);
    for (let index = 1; index <= batches; index++) {
      await runSessions(batch);
      await read(index * batch);
    }
  } finally {
    await orchestrator.stop();
  }

  const first = readings[0];
  const last = readings[readings.length - 1];
  if (!first || !last) throw new Error("no memory readings");
  const per1000 = (key: "heapUsedMiB" | "rssMiB") => ((last[key] - first[key]) / (last.sessions - first.sessions)) * 1000;
  const heapPer1000 = per1000("heapUsedMiB");
  const rssPer1000 = per1000("rssMiB");
  return {
    id: 9,
    title: "idle-session memory",
    method:
      `The orchestrator alone in a child process (node --expose-gc); ${warmupSessions} warm-up sessions, then ${batches} batches of ${batch} ` +
      `completed sessions (2 model calls, 1 tool call each, ${inFlight} in flight); heap and RSS read after 3 full GCs before and after each batch; growth per 1,000 sessions.`,
    rows: [
      {
        label: "heap growth per 1,000 idle sessions",
        baseline: "—",
        system: `${first.heapUsedMiB.toFixed(1)} → ${last.heapUsedMiB.toFixed(1)} MiB`,
        result: `${heapPer1000.toFixed(2)} MiB`,
        target: "≤ 20 MB",
        met: heapPer1000 * 1.048576 <= 20,
      },
      {
        label: "RSS growth per 1,000 idle sessions",
        baseline: "—",
        system: `${first.rssMiB.toFixed(1)} → ${last.rssMiB.toFixed(1)} MiB`,
        result: `${rssPer1000.toFixed(2)} MiB`,
        target: "≤ 20 MB",
        met: rssPer1000 * 1.048576 <= 20,
      },
    ],
    details: { readings, batch, batches, warmupSessions, inFlight },
    notes: [`Readings (sessions: heap / RSS MiB): ${readings.map((reading) => `${reading.sessions}: ${reading.heapUsedMiB.toFixed(1)} / ${reading.rssMiB.toFixed(1)}`).join("; ")}.`],
  };
}
