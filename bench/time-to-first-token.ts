/**
 * Measure 2: time to first token at the client. The system: an HTTP client streaming `POST /api/chat`
 * (SSE) through the gateway → JetStream work queue → orchestrator → model, until the first `delta` event.
 * The baseline: the openai client streaming the same request from the scripted model directly, until the
 * first content chunk. A new session each time; the model answers at once with text.
 */
import OpenAI from "openai";
import { orchestratorEnvSchema } from "@agent-orchestrator/orchestrator";
import { serviceNames, toolDefinitionsForModel } from "@agent-orchestrator/shared/wire";
import type { BenchContext } from "./support/bench-context.js";
import { benchEnv } from "./support/bench-env.js";
import { latencySamples, pick, warmupRounds } from "./support/bench-settings.js";
import { startDistributionFloor } from "./support/distribution-floor.js";
import { chatFirstDeltaMs } from "./support/gateway-client.js";
import { createInProcessAgent } from "./support/in-process-agent.js";
import { interleave } from "./support/interleave.js";
import { formatAddedMs, formatMs, type MeasureReport } from "./support/measure-report.js";
import { summarize } from "./support/stats.js";
import { countRoundTrips, describeRoundTrips } from "./support/round-trips.js";
import { settings } from "./support/service-settings.js";
import { describeTrace, firstSpanStart, traceOperation } from "./support/span-timeline.js";

const message = "answer with text";
const tracedRuns = pick(100, 20);

export async function measureTimeToFirstToken(context: BenchContext): Promise<MeasureReport> {
  const { tree, responder } = context;
  responder.delayMs = 0;
  // a system of its own, as deployed: its turns take a slot of the user's cap (USER_MAX_CONCURRENT_TURNS at its
  // default), which the bench's shared system leaves off for measure 5's many turns of one user
  const { USER_MAX_CONCURRENT_TURNS: _capOff, ...deployed } = benchEnv({ natsUrl: context.nats.url, modelUrl: context.model.url, bmadRoot: tree.root, outputRoot: context.outputRoot });
  const userTurnCap = settings(orchestratorEnvSchema, deployed).USER_MAX_CONCURRENT_TURNS;
  const system = await context.startSystem("ttft.", "in-process", { USER_MAX_CONCURRENT_TURNS: String(userTurnCap) });
  const client = new OpenAI({ apiKey: "bench", baseURL: context.model.url, maxRetries: 0 });
  const systemPrompt = await (await createInProcessAgent(system, tree.sessionAgent)).systemPrompt();
  const tools = toolDefinitionsForModel();
  const body = { agent_id: tree.sessionAgent, message };

  const modelRequest = {
    model: "scripted",
    messages: [
      { role: "system" as const, content: systemPrompt },
      { role: "user" as const, content: message },
    ],
    tools,
    stream: true as const,
    stream_options: { include_usage: true },
  };
  const directFirstChunkMs = async (): Promise<number> => {
    const started = performance.now();
    const stream = await client.chat.completions.create(modelRequest);
    let first: number | undefined;
    for await (const chunk of stream) if (first === undefined && chunk.choices[0]?.delta.content) first = performance.now() - started;
    if (first === undefined) throw new Error("the model streamed no content");
    return first;
  };

  const floorPath = await startDistributionFloor(context.nats.url, async (emit) => {
    for await (const chunk of await client.chat.completions.create(modelRequest)) {
      const text = chunk.choices[0]?.delta.content;
      if (text) emit(text);
    }
  });
  const samples = await interleave(
    {
      direct: directFirstChunkMs,
      floor: () => chatFirstDeltaMs(floorPath.url, body),
      system: () => chatFirstDeltaMs(system.gatewayUrl, body),
    },
    { warmup: warmupRounds, samples: latencySamples, betweenRounds: context.settle },
  ).finally(() => floorPath.stop());
  const roundTrips = await countRoundTrips(context.nats.url, serviceNames.orchestrator);
  const trace = await traceOperation(tracedRuns, async (mark) => {
    roundTrips.nextRun();
    const started = performance.now();
    const firstDelta = await chatFirstDeltaMs(system.gatewayUrl, body);
    mark("model received the request", responder.lastRequestAt);
    // the orchestrator's model call (its `chat <model>` span) starts: what was answered later did not hold it back
    roundTrips.modelCalled(firstSpanStart((name) => name.startsWith("chat ")) ?? responder.lastRequestAt);
    mark("client received the first delta", started + firstDelta);
  }).finally(() => roundTrips.stop());
  const turnRoundTrips = roundTrips.counts();
  const waitsBeforeTheModel = roundTrips.waits();
  context.forgetRequests();

  const direct = summarize(samples.direct);
  const distributed = summarize(samples.system);
  const floor = summarize(samples.floor);
  const addedP50 = distributed.p50 - direct.p50;
  const addedP99 = distributed.p99 - direct.p99;
  // the system's own work on the path (issue 38 item 8 asks ≤ 2 ms)
  const overFloorP50 = distributed.p50 - floor.p50;
  const modelAt = trace.steps.find((step) => step.step === "model received the request")?.medianAtMs ?? Number.NaN;
  return {
    id: 2,
    title: "time to first token",
    method:
      `HTTP SSE through the real gateway (first \`delta\` event) vs the openai client streaming the same request from the scripted ` +
      `model directly (first content chunk); new session each time, model answers with text at once; ${latencySamples} samples each, ABAB ` +
      `after ${warmupRounds} warm-up rounds. Services in this process, each with its own NATS connection, with the per-user ` +
      `cap on running turns at its default (${userTurnCap}), so each turn takes one of its user's slots as in a deployment. The floor (ABAB in the same ` +
      `rounds): the same hops with nothing else on them — an HTTP server queues the request in a JetStream work queue and waits ` +
      `for the acknowledgement, a worker on its own connection pulls it, streams the model and stores each chunk in a JetStream ` +
      `stream, the server relays the chunks as SSE (bench/support/distribution-floor.ts).`,
    rows: [
      {
        label: "p50",
        baseline: formatMs(direct.p50),
        system: formatMs(distributed.p50),
        result: formatAddedMs(addedP50),
        target: "≤ 1 ms added",
        met: addedP50 <= 1,
      },
      {
        label: "p99",
        baseline: formatMs(direct.p99),
        system: formatMs(distributed.p99),
        result: formatAddedMs(addedP99),
        target: "≤ 5 ms added",
        met: addedP99 <= 5,
      },
      {
        label: "the floor: the same hops with nothing else, p50 / p99",
        baseline: `${formatMs(direct.p50)} / ${formatMs(direct.p99)}`,
        system: `${formatMs(floor.p50)} / ${formatMs(floor.p99)}`,
        result: `${formatAddedMs(floor.p50 - direct.p50)} / ${formatAddedMs(floor.p99 - direct.p99)}`,
      },
      {
        label: "the system's own work on the path: p50 above the floor's (issue 38 item 8)",
        baseline: formatMs(floor.p50),
        system: formatMs(distributed.p50),
        result: formatAddedMs(overFloorP50),
        target: "≤ 2 ms added",
        met: overFloorP50 <= 2,
      },
      {
        label: "NATS round trips of one turn in the orchestrator, by phase (median of the traced turns)",
        baseline: "",
        system: describeRoundTrips(turnRoundTrips),
        result: `${[...turnRoundTrips.values()].reduce((sum, count) => sum + count, 0)} round trips`,
      },
      {
        label: "of them, the round trips waited for one after the other before the first model call (median; events left out)",
        baseline: "",
        system: describeRoundTrips(waitsBeforeTheModel),
        result: `${[...waitsBeforeTheModel.values()].reduce((sum, count) => sum + count, 0)} waits`,
      },
    ],
    details: { direct, floor, system: distributed, trace, tracedRuns, roundTrips: Object.fromEntries(turnRoundTrips), waitsBeforeTheModel: Object.fromEntries(waitsBeforeTheModel) },
    notes: [
      ...describeTrace(trace, tracedRuns, "turns"),
      `Everything before the model is called takes ${formatMs(modelAt)} (median, from the client's POST).`,
      `The floor adds ${formatAddedMs(floor.p50 - direct.p50)} at p50 to the model called directly (the HTTP hop to the server, the ` +
        `work-queue publish and its acknowledgement, the pull, one stored event); the system adds ` +
        `${formatAddedMs(overFloorP50)} above the floor: its own work on the path.`,
    ],
  };
}
