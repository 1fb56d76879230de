/**
 * Measure 1: what one tool call costs over NATS compared with calling the tool function directly, with a
 * zero-latency model and a file of a few bytes, so nothing hides the overhead.
 */
import { randomUUID } from "node:crypto";
import { connect } from "nats";
import { connectNats, createLogger, encodeJson } from "@agent-orchestrator/shared/runtime";
import { serviceNames } from "@agent-orchestrator/shared/wire";
import { orchestratorEnvSchema, ToolClient, toolWaitsOf } from "@agent-orchestrator/orchestrator";
import type { BenchContext } from "./support/bench-context.js";
import { latencySamples, warmupRounds } from "./support/bench-settings.js";
import { createDirectReadFile } from "./support/direct-tools.js";
import { benchProjectId, benchUser, createInProcessAgent } from "./support/in-process-agent.js";
import { interleave, timed } from "./support/interleave.js";
import { formatAddedMs, formatMs, type MeasureReport } from "./support/measure-report.js";
import { settings } from "./support/service-settings.js";
import { summarize } from "./support/stats.js";

const callsPerSession = 10;

export async function measureToolCallOverhead(context: BenchContext): Promise<MeasureReport> {
  const { system, tree } = context;
  const connection = await connectNats({ url: context.nats.url, service: serviceNames.orchestrator, logger: createLogger("bench", "silent"), credentials: null });
  try {
    const overNats = new ToolClient(connection, toolWaitsOf(settings(orchestratorEnvSchema, system.env)), "bench.");
    const direct = await createInProcessAgent(system, tree.sessionAgent);
    const distributed = await createInProcessAgent(system, tree.sessionAgent, overNats);
    context.responder.delayMs = 0;

    // ten calls per session, one per model call: a tenth of the difference is the cost of one call, clear of
    // the millisecond jitter of the model calls around it
    const message = `reread ${callsPerSession} ${tree.noopFile}`;
    const loops = await interleave(
      {
        direct: () => timed(() => direct.runTurn(message)),
        nats: () => timed(() => distributed.runTurn(message)),
      },
      { warmup: warmupRounds, samples: latencySamples, betweenRounds: context.settle },
    );

    // the call alone, without the model around it: where the loop-level difference comes from
    const readFile = await createDirectReadFile(tree.root, system.files);
    const toolContext = { session_id: randomUUID(), bundle_path: "bmad/custom/bundles/bench-suite", project_id: benchProjectId, user: benchUser, agent_id: tree.sessionAgent };
    const args = { file_path: tree.noopFile };
    // the floor: a bare request/reply to another connection that echoes the bytes back (no JSON, no checks)
    const echoConnection = await connect({ servers: context.nats.url });
    echoConnection.subscribe("bench.echo", { callback: (_error, message) => message.respond(message.data) });
    const payload = encodeJson({ call_id: randomUUID(), context: toolContext, arguments: args });
    const calls = await interleave(
      {
        direct: () => timed(() => readFile(args, toolContext)),
        nats: () => timed(() => overNats.call("read_file", randomUUID(), toolContext, args)),
        echo: () => timed(() => connection.request("bench.echo", payload, { timeout: 5_000 })),
      },
      { warmup: warmupRounds, samples: latencySamples },
    );
    await echoConnection.drain();

    const loopDirect = summarize(loops.direct);
    const loopNats = summarize(loops.nats);
    const callDirect = summarize(calls.direct);
    const callNats = summarize(calls.nats);
    const echo = summarize(calls.echo);
    const added = (loopNats.p50 - loopDirect.p50) / callsPerSession;
    return {
      id: 1,
      title: "overhead per tool call",
      method:
        `The same runAgentLoop (zero-latency model; a session of ${callsPerSession} read_file calls of a 3-byte file, one per model call, ` +
        `then an answer) with the tool called directly ` +
        `(the tool-runner's handler and sandbox, in process) vs over NATS to the tool-runner (in-process service, real nats-server); ` +
        `${latencySamples} sessions each, ABAB after ${warmupRounds} warm-up rounds; added per call = p50 difference / ${callsPerSession}. ` +
        `Second line: the tool call alone, without the loop; third: a bare request/reply echoing the same bytes, the round trip no tool call over NATS can beat.`,
      rows: [
        {
          label: `session with ${callsPerSession} tool calls, p50 / p99`,
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
        {
          label: "bare NATS request/reply, same bytes echoed, p50 / p99",
          baseline: "—",
          system: `${formatMs(echo.p50)} / ${formatMs(echo.p99)}`,
          result: `${formatMs(echo.p50)} (the floor)`,
        },
      ],
      details: { loopDirect, loopNats, callDirect, callNats, echo, callsPerSession, samples: latencySamples, warmup: warmupRounds },
      notes: [
        "Over NATS a call is: JSON encode, request to nats-server, tool-runner decodes and validates (zod), fingerprints the call (sha256) for idempotency, runs the same handler, replies; the orchestrator decodes and validates the reply.",
      ],
    };
  } finally {
    await connection.drain();
  }
}
