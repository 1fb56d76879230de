/**
 * Measure 4: the same session (2 model calls, 1 tool call) through the OpenAI Agents SDK, against a raw
 * openai-client loop, our loop in process and our whole system, all on the same scripted model with the
 * same system prompt and the same tool function. What each adds over the raw loop is the comparison.
 */
import OpenAI from "openai";
import type { BenchContext } from "./support/bench-context.js";
import { latencySamples, warmupRounds } from "./support/bench-settings.js";
import { createAgentsSdkSession } from "./support/agents-sdk-session.js";
import { createDirectReadFile } from "./support/direct-tools.js";
import { chatJson } from "./support/gateway-client.js";
import { benchProjectId, benchUser, createInProcessAgent } from "./support/in-process-agent.js";
import { interleave, timed } from "./support/interleave.js";
import { formatAddedMs, formatMs, formatRatio, type MeasureReport } from "./support/measure-report.js";
import { runRawOpenAiLoop, type ExecuteTool } from "./support/raw-openai-loop.js";
import { summarize, type Summary } from "./support/stats.js";

export async function measureAgentsSdkComparison(context: BenchContext): Promise<MeasureReport> {
  const { system, tree, responder } = context;
  responder.delayMs = 0;
  const agent = await createInProcessAgent(system, tree.sessionAgent);
  const systemPrompt = await agent.systemPrompt();
  const readFile = await createDirectReadFile(tree.root, system.files);
  const toolContext = { session_id: "bench-agents-sdk", bundle_path: "bmad/custom/bundles/bench-suite", project_id: benchProjectId, user: benchUser, agent_id: tree.sessionAgent };
  const execute: ExecuteTool = (_name, args) => readFile(args, toolContext);
  const client = new OpenAI({ apiKey: "bench", baseURL: context.model.url, maxRetries: 0 });
  const agentsSdk = createAgentsSdkSession(client, "scripted", systemPrompt, execute);
  const body = { agent_id: tree.sessionAgent, message: context.sessionMessage };

  const samples = await interleave(
    {
      raw: () => timed(() => runRawOpenAiLoop(client, "scripted", systemPrompt, context.sessionMessage, execute)),
      agentsSdk: () => timed(() => agentsSdk(context.sessionMessage)),
      oursInProcess: () => timed(() => agent.runTurn(context.sessionMessage)),
      oursSystem: () => timed(() => chatJson(system.gatewayUrl, body)),
    },
    { warmup: warmupRounds, samples: latencySamples, betweenRounds: context.settle },
  );
  const raw = summarize(samples.raw);
  const sdk = summarize(samples.agentsSdk);
  const inProcess = summarize(samples.oursInProcess);
  const distributed = summarize(samples.oursSystem);
  const sdkAdded = sdk.p50 - raw.p50;
  const line = (label: string, summary: Summary) => ({
    label: `${label}, p50 / p99`,
    baseline: `${formatMs(raw.p50)} / ${formatMs(raw.p99)}`,
    system: `${formatMs(summary.p50)} / ${formatMs(summary.p99)}`,
    result: `${formatAddedMs(summary.p50 - raw.p50)} (${formatRatio(summary.p50 / raw.p50)})`,
  });
  return {
    id: 4,
    title: "vs the OpenAI Agents SDK",
    method:
      `One session (2 model calls, 1 read_file, zero-latency model, streamed): raw openai-client loop (baseline) vs @openai/agents ` +
      `(Runner, OpenAIChatCompletionsModel, tracing off, stream: true, our four tools as its function tools) vs our runAgentLoop in ` +
      `process vs our whole system (POST /api/chat, services in this process); same system prompt and tool function everywhere; ` +
      `${latencySamples} sessions each, interleaved ABCD after ${warmupRounds} warm-up rounds.`,
    rows: [
      line("@openai/agents", sdk),
      { ...line("our loop, in process", inProcess), target: "add less than the SDK", met: inProcess.p50 - raw.p50 < sdkAdded },
      { ...line("our whole system", distributed), target: "add less than the SDK", met: distributed.p50 - raw.p50 < sdkAdded },
    ],
    details: { raw, agentsSdk: sdk, oursInProcess: inProcess, oursSystem: distributed },
    notes: [
      "Our loop in process also runs the agent's critical actions (reads config.yaml) and builds the system prompt each turn; the raw loop and the SDK get the finished prompt.",
      "Our whole system also persists the session and its project (JetStream KV) and publishes every event; the SDK and the raw loop keep nothing.",
    ],
  };
}
