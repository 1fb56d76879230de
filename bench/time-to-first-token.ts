/**
 * Measure 2: time to first token at the client. The system: an HTTP client streaming `POST /api/chat`
 * (SSE) through the gateway → JetStream work queue → orchestrator → model, until the first `delta` event.
 * The baseline: the openai client streaming the same request from the scripted model directly, until the
 * first content chunk. A new session each time; the model answers at once with text.
 */
import OpenAI from "openai";
import { toolDefinitionsForModel } from "@agent-orchestrator/shared";
import type { BenchContext } from "./support/bench-context.js";
import { latencySamples, pick, warmupRounds } from "./support/bench-settings.js";
import { chatFirstDeltaMs } from "./support/gateway-client.js";
import { createInProcessAgent } from "./support/in-process-agent.js";
import { interleave } from "./support/interleave.js";
import { formatAddedMs, formatMs, type MeasureReport } from "./support/measure-report.js";
import { summarize } from "./support/stats.js";
import { describeTrace, traceOperation } from "./support/span-timeline.js";

const message = "answer with text";
const tracedRuns = pick(100, 20);

export async function measureTimeToFirstToken(context: BenchContext): Promise<MeasureReport> {
  const { system, tree, responder } = context;
  responder.delayMs = 0;
  const client = new OpenAI({ apiKey: "bench", baseURL: context.model.url, maxRetries: 0 });
  const systemPrompt = await (await createInProcessAgent(system, tree.sessionAgent)).systemPrompt();
  const tools = toolDefinitionsForModel();
  const body = { agent_id: tree.sessionAgent, message };

  const directFirstChunkMs = async (): Promise<number> => {
    const started = performance.now();
    const stream = await client.chat.completions.create({
      model: "scripted",
      messages: [
        { role: "system", content: systemPrompt },
        { role: "user", content: message },
      ],
      tools,
      stream: true,
      stream_options: { include_usage: true },
    });
    let first: number | undefined;
    for await (const chunk of stream) if (first === undefined && chunk.choices[0]?.delta.content) first = performance.now() - started;
    if (first === undefined) throw new Error("the model streamed no content");
    return first;
  };

  const samples = await interleave(
    { direct: directFirstChunkMs, system: () => chatFirstDeltaMs(system.gatewayUrl, body) },
    { warmup: warmupRounds, samples: latencySamples, betweenRounds: context.settle },
  );
  const trace = await traceOperation(tracedRuns, async (mark) => {
    const started = performance.now();
    const firstDelta = await chatFirstDeltaMs(system.gatewayUrl, body);
    mark("model received the request", responder.lastRequestAt);
    mark("client received the first delta", started + firstDelta);
  });
  context.forgetRequests();

  const direct = summarize(samples.direct);
  const distributed = summarize(samples.system);
  const addedP50 = distributed.p50 - direct.p50;
  const addedP99 = distributed.p99 - direct.p99;
  const modelAt = trace.steps.find((step) => step.step === "model received the request")?.medianAtMs ?? Number.NaN;
  return {
    id: 2,
    title: "time to first token",
    method:
      `HTTP SSE through the real gateway (first \`delta\` event) vs the openai client streaming the same request from the scripted ` +
      `model directly (first content chunk); new session each time, model answers with text at once; ${latencySamples} samples each, ABAB ` +
      `after ${warmupRounds} warm-up rounds. Services in this process, each with its own NATS connection.`,
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
    ],
    details: { direct, system: distributed, trace, tracedRuns },
    notes: [
      ...describeTrace(trace, tracedRuns, "turns"),
      `Everything before the model is called takes ${formatMs(modelAt)} (median): the turn goes through the JetStream work queue, ` +
        `then the orchestrator asks the registry for the agent, reads and writes the session in JetStream KV, has the tool-runner ` +
        `write the session manifest, and reads the agent's config through the tool-runner, one round trip after another.`,
    ],
  };
}
