/**
 * Measure 16 (bench/README.md "A huge model answer (measure 16)"): how much does the orchestrator's resident
 * memory rise while a model streams far more than a turn may keep (docs/security.md cases 126 and 127)? The
 * four services run as processes against a scripted model of this measure's own, MODEL_ANSWER_MAX_BYTES 1 MiB:
 * a 100 MiB answer in 64 KiB events (stopped at 1 MiB) and one 30 MiB event (refused at the event cap, 6 MiB +
 * 64 KiB), each repeated after a warm-up, the orchestrator's VmRSS sampled every 20 ms from a worker thread
 * and set against its reading just before. The tests check that the orchestrator stops reading (the model
 * server's delivered bytes); this reports what that costs in memory, which depends on when the garbage
 * collector runs and so has no place in a test.
 */
import type { BenchContext } from "./support/bench-context.js";
import { pick } from "./support/bench-settings.js";
import { benchEnv } from "./support/bench-env.js";
import { postChat } from "./support/gateway-client.js";
import type { MeasureReport, MeasureRow } from "./support/measure-report.js";
import { percentile } from "./support/percentile.js";
import { rssKiB, startRssSampler, waitForRestingRss } from "./support/rss-sampler.js";
import { startSystem as startServiceProcesses } from "@agent-orchestrator/testing/service-processes";
import { startHttpModel, type ChatRequestBody, type ScriptedTurn } from "@agent-orchestrator/testing/http-model";
import { withoutSystemNote } from "@agent-orchestrator/testing/system-note";

const repetitions = pick(5, 2);
const answerMaxBytes = 1024 * 1024;
/** the security cases' bound: the orchestrator grows by less than this for an answer of 100 MiB or an event of 30 MiB */
const targetMiB = 64;
const rest = { windowMs: 2_000, toleranceKiB: 1_024, maxMs: pick(10_000, 5_000) };
const kinds = {
  "100 MiB answer (64 KiB events)": "huge answer",
  "one 30 MiB event": "one huge line",
} as const;
type Kind = keyof typeof kinds;

function respond(request: ChatRequestBody): ScriptedTurn {
  const said = withoutSystemNote(String(request.messages.at(-1)?.content ?? ""));
  if (said === kinds["one 30 MiB event"]) return { text: "y".repeat(30 * 1024 * 1024) };
  if (said === kinds["100 MiB answer (64 KiB events)"]) return { streamedText: { piece: "x".repeat(64 * 1024), times: 1_600 } };
  return { text: `fine: ${said}` };
}

export async function measureModelOutputMemory(context: BenchContext): Promise<MeasureReport> {
  const model = await startHttpModel({ responder: respond });
  const env = benchEnv({ natsUrl: context.nats.url, modelUrl: model.url, bmadRoot: context.tree.root, outputRoot: context.outputRoot });
  const system = await startServiceProcesses({ ...env, LOG_LEVEL: "warn", MODEL_ANSWER_MAX_BYTES: String(answerMaxBytes) });
  const pid = system.processes.find((service) => service.name === "orchestrator")?.child.pid ?? -1;
  const growthMiB: Record<Kind, number[]> = { "100 MiB answer (64 KiB events)": [], "one 30 MiB event": [] };
  const statuses = new Set<number>();
  try {
    // the first of each pays for the code paths' first run and the heap's first growth: not counted
    for (const message of Object.values(kinds)) await postChat(system.url, { agent_id: context.tree.sessionAgent, message });
    for (let round = 0; round < repetitions; round += 1) {
      for (const [kind, message] of Object.entries(kinds) as Array<[Kind, string]>) {
        await waitForRestingRss({ orchestrator: pid }, rest);
        const beforeKiB = rssKiB(pid);
        const sampler = await startRssSampler({ orchestrator: pid }, 20);
        statuses.add((await postChat(system.url, { agent_id: context.tree.sessionAgent, message })).status);
        const trace = await sampler.stop();
        growthMiB[kind].push(((trace.peakKiB["orchestrator"] ?? beforeKiB) - beforeKiB) / 1024);
      }
    }
  } finally {
    await system.stop();
    await model.close();
  }
  const rows: MeasureRow[] = (Object.keys(kinds) as Kind[]).map((kind) => {
    const worst = Math.max(...growthMiB[kind]);
    return {
      label: `orchestrator peak RSS growth, ${kind} (median / worst of ${repetitions}, MiB)`,
      baseline: "",
      system: `${percentile(growthMiB[kind], 0.5).toFixed(1)} / ${worst.toFixed(1)}`,
      result: `${worst.toFixed(1)} MiB`,
      target: `< ${targetMiB} MiB`,
      met: worst < targetMiB,
    };
  });
  return {
    id: 16,
    title: "A huge model answer: the orchestrator's memory",
    method: `Four service processes, MODEL_ANSWER_MAX_BYTES ${answerMaxBytes} bytes; a 100 MiB streamed answer and one 30 MiB event, ${repetitions} of each after a warm-up, the orchestrator's VmRSS sampled every 20 ms against its reading at rest just before.`,
    rows,
    details: { growthMiB, statuses: [...statuses] },
    notes: [`HTTP statuses seen: ${[...statuses].join(", ")} (both turns end with MODEL_OUTPUT_TOO_LARGE, answered 502 on /api/chat without streaming).`],
  };
}
