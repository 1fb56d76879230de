/**
 * Usage is never lost (docs/security.md case 136): a turn that is cancelled, times out or meets a model error
 * after some calls records every token it used, in its `error` event, in the session and in the metrics, as a
 * completed turn does. Real NATS, the scripted model behind the real openai client, a fake registry and tool-runner.
 */
import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { encodeJson, requestJson } from "@agent-orchestrator/shared/runtime";
import { SessionGetReply, subjects, type RunEvent, type Usage } from "@agent-orchestrator/shared/wire";
import { startHttpModel, type ChatRequestBody, type HttpModel, type ScriptedTurn } from "@agent-orchestrator/testing/http-model";
import { withoutSystemNote } from "@agent-orchestrator/testing/system-note";
import { orchestratorMetrics } from "./orchestrator-metrics.js";
import type { Orchestrator } from "./orchestrator-service.js";
import { runTestTurn, startFakeServices, startTestOrchestrator, testAgent } from "./testing/orchestrator-fixture.js";

const prefix = "use1.";
/** an orchestrator whose turns may run 3 s */
const shortPrefix = "use2.";
let connection: NatsConnection;
let model: HttpModel;
const orchestrators: Orchestrator[] = [];

// the latest user message, without the system's note of the day that ends the first
const userText = (body: ChatRequestBody) => withoutSystemNote(String(body.messages.filter((message) => message.role === "user").at(-1)?.content));
const callsFor = (text: string) => model.requests.filter((request) => userText(request.body) === text).length;
const readConfig: ScriptedTurn = { toolCalls: [{ name: "read_file", arguments: { file_path: "{bundle-root}/config.yaml" } }] };
/** Each turn's model calls by its message: two that read a file, then the third as the test says. */
const thirdCall: Record<string, ScriptedTurn> = {
  "cancel me": { text: "never sent", delayMs: 30_000 },
  "time me out": { text: "never sent", delayMs: 30_000 },
  "fail me": { status: 500 },
};

beforeAll(async () => {
  connection = await connect({ servers: inject("natsUrl") });
  model = await startHttpModel({
    responder: (body) => {
      const text = userText(body);
      return callsFor(text) <= 2 ? readConfig : (thirdCall[text] ?? { text: "done" });
    },
  });
  const env = { OPENAI_BASE_URL: model.url, OPENAI_API_KEY: "k", LLM_MODEL: "scripted" };
  for (const name of [prefix, shortPrefix]) startFakeServices(connection, name, { toolRunner: true });
  orchestrators.push(await startTestOrchestrator(connection, prefix, env), await startTestOrchestrator(connection, shortPrefix, { ...env, TURN_TIMEOUT_MS: "3000" }));
});

afterAll(async () => {
  await Promise.all(orchestrators.map((orchestrator) => orchestrator.stop()));
  await model.close();
  await connection.drain();
});

const sum = (usages: readonly Usage[]): Usage =>
  usages.reduce(
    (total, usage) => ({
      prompt_tokens: total.prompt_tokens + usage.prompt_tokens,
      completion_tokens: total.completion_tokens + usage.completion_tokens,
      total_tokens: total.total_tokens + usage.total_tokens,
    }),
    { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
  );

async function storedUsage(turnPrefix: string, sessionId: string): Promise<Usage> {
  const reply = await requestJson(connection, turnPrefix + subjects.sessionGet, { session_id: sessionId, user: "ada" }, SessionGetReply, { timeoutMs: 5_000 });
  if (!reply.success) throw new Error(reply.error.message);
  return reply.session.usage;
}

const promptTokensCounted = async () =>
  (await orchestratorMetrics.turnTokens.get()).values.find((value) => value.labels["agent"] === testAgent.id && value.labels["kind"] === "prompt")?.value ?? 0;

/** The final event of a failed turn with its tokens: checked alike for every way of failing. */
async function expectUsageRecorded(final: RunEvent | undefined, turnPrefix: string, sessionId: string, calls: number) {
  if (final?.type !== "error") throw new Error(`expected an error event, got ${JSON.stringify(final)}`);
  expect(final.usage_by_call).toHaveLength(calls);
  // the two calls that read a file answered in full: their tokens are what the model reported
  for (const usage of final.usage_by_call?.slice(0, 2) ?? []) expect(usage.total_tokens).toBeGreaterThan(0);
  expect(final.usage).toEqual(sum(final.usage_by_call ?? []));
  // a new session: its total is this turn's, saved before the final event
  expect(final.session_usage).toEqual(final.usage);
  expect(await storedUsage(turnPrefix, sessionId)).toEqual(final.usage);
  return final;
}

describe("usage of a turn that does not complete", () => {
  it("case 136: a cancelled turn records its two answered calls and an estimate of the one it cut off", async () => {
    const promptBefore = await promptTokensCounted();
    let sessionId = "";
    const turn = runTestTurn(connection, prefix, "cancel me", {
      timeoutMs: 20_000,
      onEvent: (event) => {
        if (event.type === "session") sessionId = event.session_id;
      },
    });
    await expect.poll(() => callsFor("cancel me"), { timeout: 10_000 }).toBe(3);
    connection.publish(prefix + subjects.runCancel(sessionId), encodeJson({ session_id: sessionId }));
    const { final } = await turn;
    expect(final).toMatchObject({ type: "error", error: { code: "CANCELLED" } });
    const failed = await expectUsageRecorded(final, prefix, sessionId, 3);
    // the cut-off call never reported its usage; its prompt was sent, so it counts an estimate
    expect(failed.usage_by_call?.[2]?.prompt_tokens).toBeGreaterThan(0);
    // the metrics count a failed turn's tokens as they count a completed one's
    expect((await promptTokensCounted()) - promptBefore).toBe(failed.usage?.prompt_tokens);
  });

  it("case 136: a timed-out turn records its tokens", async () => {
    const { final, sessionId } = await runTestTurn(connection, shortPrefix, "time me out", { timeoutMs: 20_000 });
    expect(final).toMatchObject({ type: "error", error: { code: "TURN_TIMEOUT" } });
    await expectUsageRecorded(final, shortPrefix, sessionId, 3);
  });

  it("case 136: a model error after two calls records the two calls; the refused call counts nothing", async () => {
    const { final, sessionId } = await runTestTurn(connection, prefix, "fail me", { timeoutMs: 20_000 });
    expect(final).toMatchObject({ type: "error", error: { code: "MODEL_UNAVAILABLE" } });
    const failed = await expectUsageRecorded(final, prefix, sessionId, 3);
    expect(failed.usage_by_call?.[2]).toEqual({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
  });
});
