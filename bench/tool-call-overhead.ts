/**
 * Measure 1: what one tool call costs over NATS compared with calling the tool function directly, with a
 * zero-latency model and a file of a few bytes, so nothing hides the overhead.
 */
import { randomUUID } from "node:crypto";
import { connectNats, createLogger, serviceNames } from "@agent-orchestrator/shared";
import { orchestratorEnvSchema } from "../services/orchestrator/src/config.js";
import { ToolClient } from "../services/orchestrator/src/tool-client.js";
import type { BenchContext } from "./support/bench-context.js";
import { latencySamples, warmupRounds } from "./support/bench-settings.js";
import { createDirectReadFile } from "./support/direct-tools.js";
import { createInProcessAgent } from "./support/in-process-agent.js";
import { interleave, timed } from "./support/interleave.js";
import { formatAddedMs, formatMs, type MeasureReport } from "./support/measure-report.js";
import { settings } from "./support/service-settings.js";
import { summarize } from "./support/stats.js";

export async function measureToolCallOverhead(context: BenchContext): Promise<MeasureReport> {
  const { system, tree } = context;
  const connection = await connectNats({ url: context.nats.url, service: serviceNames.orchestrator, logger: createLogger("bench", "silent") });
  try {
    const overNats = new ToolClient(connection, settings(orchestratorEnvSchema, system.env).TOOL_TIMEOUT_MS, "bench.");
    const direct = await createInProcessAgent(system, tree.sessionAgent);
    const distributed = await createInProcessAgent(system, tree.sessionAgent, overNats);
    context.responder.delayMs = 0;

    const loops = await interleave(
      {
        direct: () => timed(() => direct.runTurn(context.sessionMessage)),
        nats: () => timed(() => distributed.runTurn(context.sessionMessage)),
      },
      { warmup: warmupRounds, samples: latencySamples, betweenRounds: context.settle },
    );

    // the call alone, without the model around it: where the loop-level difference comes from
    const readFile = await createDirectReadFile(tree.root, context.outputRoot);
    const toolContext = { session_id: randomUUID(), bundle_path: "bmad/custom/bundles/bench-suite" };
    const args = { file_path: tree.noopFile };
    const calls = await interleave(
      {
        direct: () => timed(() => readFile(args, toolContext)),
        nats: () => timed(() => overNats.call("read_file", randomUUID(), toolContext, args)),
      },
      { warmup: warmupRounds, samples: latencySamples },
    );

    const loopDirect = summarize(loops.direct);
    const loopNats = summarize(loops.nats);
    const callDirect = summarize(calls.direct);
    const callNats = summarize(calls.nats);
    const added = loopNats.p50 - loopDirect.p50;
    return {
      id: 1,
      title: "overhead per tool call",
      method:
        `The same runAgentLoop (zero-latency model, 2 model calls, 1 read_file of a 3-byte file) with the tool called directly ` +
        `(the tool-runner's handler and sandbox, in process) vs over NATS to the tool-runner (in-process service, real nats-server); ` +
        `${latencySamples} sessions each, ABAB after ${warmupRounds} warm-up rounds. Second line: the tool call alone.`,
      rows: [
        {
          label: "session with 1 tool call, p50 / p99",
          baseline: `${formatMs(loopDirect.p50)} / ${formatMs(loopDirect.p99)}`,
          system: `${formatMs(loopNats.p50)} / ${formatMs(loopNats.p99)}`,
          result: `${formatAddedMs(added)} per call (p50)`,
          target: "≤ 0.4 ms p50 added",
          met: added <= 0.4,
        },
        {
          label: "the tool call alone, p50 / p99",
          baseline: `${formatMs(callDirect.p50)} / ${formatMs(callDirect.p99)}`,
          system: `${formatMs(callNats.p50)} / ${formatMs(callNats.p99)}`,
          result: `${formatAddedMs(callNats.p50 - callDirect.p50)} (p50)`,
        },
      ],
      details: { loopDirect, loopNats, callDirect, callNats, samples: latencySamples, warmup: warmupRounds },
      notes: [
        "Over NATS a call is: JSON encode, request to nats-server, tool-runner decodes and validates (zod), fingerprints the call (sha256) for idempotency, runs the same handler, replies; the orchestrator decodes and validates the reply.",
      ],
    };
  } finally {
    await connection.drain();
  }
}
