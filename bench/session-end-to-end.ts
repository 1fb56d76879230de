/**
 * Measure 3: a whole session (2 model calls, 1 tool call) end to end, zero-latency model. The baseline is
 * the in-process loop (the orchestrator's own code for a turn, tools called directly); the system is a
 * client's `POST /api/chat` answered as JSON, once with the services in this process and once as four
 * processes (`node services/<name>/dist/main.js`, the way production runs them).
 */
import { startSystem as startServiceProcesses } from "@agent-orchestrator/testing/service-processes";
import type { BenchContext } from "./support/bench-context.js";
import { latencySamples, pick, warmupRounds } from "./support/bench-settings.js";
import { benchEnv } from "./support/bench-env.js";
import { chatFirstDeltaMs, chatJson } from "./support/gateway-client.js";
import { createInProcessAgent } from "./support/in-process-agent.js";
import { interleave, timed } from "./support/interleave.js";
import { formatMs, formatRatio, type MeasureReport } from "./support/measure-report.js";
import { startSessionFloor } from "./support/session-floor.js";
import { summarize } from "./support/stats.js";
import { describeTrace, traceOperation } from "./support/span-timeline.js";

const tracedRuns = pick(100, 20);

export async function measureSessionEndToEnd(context: BenchContext): Promise<MeasureReport> {
  const { system, tree, responder } = context;
  responder.delayMs = 0;
  const agent = await createInProcessAgent(system, tree.sessionAgent);
  const body = { agent_id: tree.sessionAgent, message: context.sessionMessage };
  // no prefix: these processes take the real subjects, which nothing else on this private server uses;
  // LOG_LEVEL warn, because the harness learns the gateway's URL from its "listening" warning
  const env = benchEnv({ natsUrl: context.nats.url, modelUrl: context.model.url, bmadRoot: tree.root, outputRoot: context.outputRoot });
  const processes = await startServiceProcesses({ ...env, LOG_LEVEL: "warn" });
  const floorPath = await startSessionFloor(context);
  let samples: Record<"inProcess" | "floor" | "system" | "processes", number[]>;
  try {
    samples = await interleave(
      {
        inProcess: () => timed(() => agent.runTurn(context.sessionMessage)),
        floor: () => timed(() => chatFirstDeltaMs(floorPath.url, body)),
        system: () => timed(() => chatJson(system.gatewayUrl, body)),
        processes: () => timed(() => chatJson(processes.url, body)),
      },
      { warmup: warmupRounds, samples: latencySamples, betweenRounds: context.settle },
    );
  } finally {
    await processes.stop();
    await floorPath.stop();
  }
  const trace = await traceOperation(tracedRuns, async (mark) => {
    await chatJson(system.gatewayUrl, body);
    mark("client received the answer");
    mark("model received its last request", responder.lastRequestAt);
  });
  context.forgetRequests();

  const inProcess = summarize(samples.inProcess);
  const inOneProcess = summarize(samples.system);
  const asProcesses = summarize(samples.processes);
  const floor = summarize(samples.floor);
  const ratio = inOneProcess.p50 / inProcess.p50;
  return {
    id: 3,
    title: "whole session",
    method:
      `A session of 2 model calls and 1 read_file (zero-latency model): the in-process loop vs POST /api/chat (JSON answer) through ` +
      `the services started in this process, and through the four services as four processes; ${latencySamples} sessions each, ` +
      `interleaved ABCD after ${warmupRounds} warm-up rounds. The floor (bench/support/distribution-floor.ts): the same in-process ` +
      `loop behind the hops a turn cannot avoid — HTTP to a server, a JetStream work queue with its acknowledgement, a pull, the ` +
      `tool call over NATS to the real tool-runner, the answer stored as an event and relayed as SSE — with nothing else.`,
    rows: [
      {
        label: "services in one process, p50 / p99",
        baseline: `${formatMs(inProcess.p50)} / ${formatMs(inProcess.p99)}`,
        system: `${formatMs(inOneProcess.p50)} / ${formatMs(inOneProcess.p99)}`,
        result: `${formatRatio(ratio)} (p50)`,
        target: "≤ 1.5×",
        met: ratio <= 1.5,
      },
      {
        label: "services as 4 processes, p50 / p99",
        baseline: `${formatMs(inProcess.p50)} / ${formatMs(inProcess.p99)}`,
        system: `${formatMs(asProcesses.p50)} / ${formatMs(asProcesses.p99)}`,
        result: `${formatRatio(asProcesses.p50 / inProcess.p50)} (p50)`,
        target: "≤ 1.5×",
        met: asProcesses.p50 / inProcess.p50 <= 1.5,
      },
      {
        label: "the floor: the same hops with nothing else, p50 / p99",
        baseline: `${formatMs(inProcess.p50)} / ${formatMs(inProcess.p99)}`,
        system: `${formatMs(floor.p50)} / ${formatMs(floor.p99)}`,
        result: `${formatRatio(floor.p50 / inProcess.p50)} (p50)`,
      },
    ],
    details: { inProcess, floor, system: inOneProcess, processes: asProcesses, trace, tracedRuns },
    notes: describeTrace(trace, tracedRuns, "sessions, services in one process"),
  };
}
