/**
 * A subagent spends its parent's project and user (docs/models.md "Budgets"): it asks the budgets before each of
 * its own model calls, seeing what its parent's calls stored, and each of its calls is counted in the totals as it
 * ends, its parent's turn once. Real NATS (the work queue carries the child), the scripted model behind the real
 * openai client, a fake registry and tool-runner.
 */
import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { requestJson } from "@agent-orchestrator/shared/runtime";
import { subjects, UserUsageReply } from "@agent-orchestrator/shared/wire";
import { startHttpModel, type ChatRequestBody, type HttpModel } from "@agent-orchestrator/testing/http-model";
import type { Orchestrator } from "../orchestrator-service.js";
import { runTestTurn, startFakeServices, startTestOrchestrator, testAgent } from "../testing/orchestrator-fixture.js";

const prefix = "budget1.";
let connection: NatsConnection;
let model: HttpModel;
let orchestrator: Orchestrator;

/** An agent that uses a skill, so run_subagent is offered to it. */
const delegator = { ...testAgent, id: "delegator", menu: [{ trigger: "SUM", description: "Summarize", skill: "bmad-summarize" }] };
/** every call reports 1,000 prompt and 500 answer tokens: 0.002 at MODEL_PRICE 1,,2 */
const usage = { prompt_tokens: 1_000, completion_tokens: 500 };
const callCost = (1_000 * 1 + 500 * 2) / 1_000_000;

const isChild = (body: ChatRequestBody) => String(body.messages[0]?.content).includes("working as a subagent");

beforeAll(async () => {
  connection = await connect({ servers: inject("natsUrl") });
  // the parent delegates; the child reads a file again and again until its budget stops it
  model = await startHttpModel({
    responder: (body) =>
      isChild(body)
        ? { toolCalls: [{ name: "read_file", arguments: { file_path: "{bundle-root}/config.yaml" } }], usage }
        : body.messages.at(-1)?.role === "tool"
          ? { text: "the parent goes on", usage }
          : { toolCalls: [{ name: "run_subagent", arguments: { prompt: "read the config" } }], usage },
  });
  startFakeServices(connection, prefix, { toolRunner: true, agents: [delegator] });
  // the user's day allows two calls: the parent's first, then the child's first, which reaches it
  orchestrator = await startTestOrchestrator(connection, prefix, {
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: "k",
    LLM_MODEL: "scripted",
    MODEL_PRICE: "1,,2",
    BUDGET_USER_DAILY: String(2 * callCost),
  });
});

afterAll(async () => {
  await orchestrator?.stop();
  await model?.close();
  await connection?.drain();
});

describe("a subagent and the budgets", () => {
  it("stops the subagent at its model call past the user's budget, then its parent at its next, and counts every call once and the turn once", async () => {
    const { final } = await runTestTurn(connection, prefix, "delegate", { agentId: delegator.id, owner: "sam", timeoutMs: 30_000 });
    expect(final).toMatchObject({ type: "error", error: { code: "BUDGET_EXCEEDED", message: expect.stringContaining("Your daily budget of 0.004 is spent") } });
    // the parent's first call was stored as it ended, so the child sees it: its first call reaches the budget and
    // its second is refused; the parent's second call is refused too
    const childCalls = model.requests.filter((request) => isChild(request.body)).length;
    expect(childCalls).toBe(1);
    expect(model.requests.filter((request) => !isChild(request.body))).toHaveLength(1);
    expect(final?.type === "error" && final.usage?.cost).toBe(2 * callCost);
    const reply = await requestJson(connection, prefix + subjects.usageUser, { user: "sam" }, UserUsageReply, { timeoutMs: 5_000 });
    if (!reply.success) throw new Error(reply.error.message);
    expect(reply.usage.today).toMatchObject({ prompt_tokens: 2_000, completion_tokens: 1_000, cost: 2 * callCost, turns: 1 });
  });
});
