/**
 * Subagents die with their parent (docs/security.md cases 135 and 137). One orchestrator with one slot of its
 * own (RUN_CONCURRENCY 1) runs a parent that asks for three subagents, two at a time (SUBAGENT_CONCURRENCY 2),
 * while another user's slow turn waits in the work queue ahead of the children: of the two children queued,
 * one runs in a slot the parent lends and one waits in the queue behind that turn; the third waits in the
 * parent's gate. Then the parent is cancelled. Real NATS, the scripted model behind the real openai client.
 */
import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { decodeJson, encodeJson } from "@agent-orchestrator/shared/runtime";
import { jetStreamNames, RunEvent, subjects } from "@agent-orchestrator/shared/wire";
import { startHttpModel, type ChatRequestBody, type HttpModel, type ScriptedTurn } from "@agent-orchestrator/testing/http-model";
import { withoutSystemNote } from "@agent-orchestrator/testing/system-note";
import type { Orchestrator } from "../orchestrator-service.js";
import { runTestTurn, startFakeServices, startTestOrchestrator, testAgent } from "../testing/orchestrator-fixture.js";

const prefix = "kid1.";
let connection: NatsConnection;
let model: HttpModel;
let orchestrator: Orchestrator;

/** run_subagent is offered to agents that use skills */
const skillUser = { ...testAgent, id: "skill-user", menu: [{ trigger: "SUM", description: "Summarize", skill: "bmad-summarize" }] };
const isChild = (body: ChatRequestBody) => String(body.messages[0]?.content).includes("working as a subagent");
// the latest user message: a turn's own text or a child's task, without the system's note of the day that ends the first
const userText = (body: ChatRequestBody) => withoutSystemNote(String(body.messages.findLast((message) => message.role === "user")?.content));

let letParentAnswer!: () => void;
const parentMayAnswer = new Promise<void>((resolve) => (letParentAnswer = resolve));
let releaseBlocker!: () => void;
const blockerReleased = new Promise<void>((resolve) => (releaseBlocker = resolve));

async function respond(body: ChatRequestBody): Promise<ScriptedTurn> {
  // a child thinks for far longer than the test: only a cancel ends it early
  if (isChild(body)) return { text: "too late", delayMs: 30_000 };
  if (userText(body) === "slow turn of another user") {
    await blockerReleased;
    return { text: "blocker done" };
  }
  await parentMayAnswer;
  return { toolCalls: ["task 1", "task 2", "task 3"].map((prompt, index) => ({ id: `kid_${index + 1}`, name: "run_subagent", arguments: { prompt } })) };
}

beforeAll(async () => {
  connection = await connect({ servers: inject("natsUrl") });
  model = await startHttpModel({ responder: respond });
  startFakeServices(connection, prefix, { toolRunner: true, agents: [skillUser] });
  orchestrator = await startTestOrchestrator(connection, prefix, {
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: "k",
    LLM_MODEL: "scripted",
    RUN_CONCURRENCY: "1",
    SUBAGENT_CONCURRENCY: "2",
  });
});

afterAll(async () => {
  releaseBlocker();
  await orchestrator.stop();
  await model.close();
  await connection.drain();
});

describe("a cancelled parent's subagents", () => {
  it("case 135: the queued children never call the model, the running one stops at the cancel; case 137: its tokens are the parent's", async () => {
    const manager = await connection.jetstreamManager();
    const { runRequests, runRequestsConsumer } = jetStreamNames(prefix);
    const queue = () => manager.consumers.info(runRequests, runRequestsConsumer);
    const childEvents: RunEvent[] = [];
    let parentRun = { sessionId: "", runId: "" };
    const parent = runTestTurn(connection, prefix, "start three helpers", {
      agentId: skillUser.id,
      timeoutMs: 30_000,
      onEvent: (event) => {
        if (event.type !== "session") return;
        parentRun = { sessionId: event.session_id, runId: event.run_id };
        connection.subscribe(`${prefix}agent.run.child.events.${event.session_id}.*`, { callback: (_error, message) => childEvents.push(decodeJson(message.data, RunEvent)) });
      },
    });
    await expect.poll(() => parentRun.runId, { timeout: 10_000 }).not.toBe("");

    // another user's turn waits in the work queue (the parent holds the only slot), ahead of any child
    const blocker = runTestTurn(connection, prefix, "slow turn of another user", { owner: "bob", timeoutMs: 60_000 });
    await expect.poll(async () => (await queue()).num_pending, { timeout: 10_000 }).toBe(1);
    letParentAnswer();

    // the two slots the parent lends go to the blocker and one child; the other child waits in the queue
    const childRequests = () => model.requests.filter((request) => isChild(request.body)).map((request) => userText(request.body));
    await expect.poll(childRequests, { timeout: 10_000 }).toHaveLength(1);
    await expect.poll(() => model.requests.filter((request) => userText(request.body) === "slow turn of another user").length, { timeout: 10_000 }).toBe(1);
    await expect.poll(async () => (await queue()).num_pending, { timeout: 10_000 }).toBe(1);
    const [runningTask] = childRequests();

    connection.publish(prefix + subjects.runCancel(parentRun.sessionId), encodeJson({ session_id: parentRun.sessionId, run_id: parentRun.runId }));
    const { final } = await parent;
    expect(final).toMatchObject({ type: "error", error: { code: "CANCELLED" } });
    // the running child stopped at the cancel, long before its model would have answered (30 s)
    const runningChild = childEvents.find((event) => event.type === "session")?.run_id;
    await expect.poll(() => childEvents.find((event) => event.run_id === runningChild && event.type === "error"), { timeout: 5_000 }).toMatchObject({ error: { code: "CANCELLED" } });

    // the blocker ends; the queued child is taken from the queue only now, after its parent ended: it is dropped
    releaseBlocker();
    expect((await blocker).final).toMatchObject({ type: "done" });
    await expect.poll(async () => {
      const info = await queue();
      return info.num_pending + info.num_ack_pending;
    }, { timeout: 10_000 }).toBe(0);
    const dropped = childEvents.filter((event) => event.run_id !== runningChild);
    expect(dropped.map((event) => event.type)).toEqual(["error"]);
    expect(dropped[0]).toMatchObject({ error: { code: "CANCELLED" } });
    // only the child that ran ever reached the model, once; the queued one and the one in the gate never did
    expect(childRequests()).toEqual([runningTask]);

    // case 137: the running child's tokens (its cut-off call, estimated) are in the parent's usage
    if (final?.type !== "error") throw new Error("no error event");
    expect(final.usage_by_subagent).toHaveLength(1);
    const childTokens = final.usage_by_subagent?.[0]?.usage.total_tokens ?? 0;
    expect(childTokens).toBeGreaterThan(0);
    const ownTokens = (final.usage_by_call ?? []).reduce((total, usage) => total + usage.total_tokens, 0);
    expect(final.usage?.total_tokens).toBe(ownTokens + childTokens);
  });
});
