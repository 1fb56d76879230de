import { randomUUID } from "node:crypto";
import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { encodeJson, requestJson } from "@agent-orchestrator/shared/runtime";
import { jetStreamNames, SessionGetReply, SessionListReply, subjects } from "@agent-orchestrator/shared/wire";
import { startHttpModel, type HttpModel } from "@agent-orchestrator/testing/http-model";
import { endsWithDateNote } from "@agent-orchestrator/testing/system-note";
import type { Orchestrator } from "./orchestrator-service.js";
import {
  runTestTurn,
  startFakeServices,
  startTestOrchestrator,
  testAgent as agent,
  type FakeToolRunner,
  type TurnOptions,
} from "./testing/orchestrator-fixture.js";

/** a second agent of the same bundle, to continue a chat with */
const otherAgent = { ...agent, id: "other-tester" };

let connection: NatsConnection;
let model: HttpModel;
let runner: FakeToolRunner;
const runTurn = (prefix: string, message: string, options?: TurnOptions) => runTestTurn(connection, prefix, message, options);

const prefixes = { main: "o1.", noModel: "o2.", noTools: "o3." };
const started: Orchestrator[] = [];

beforeAll(async () => {
  connection = await connect({ servers: inject("natsUrl") });
  model = await startHttpModel();
  runner = startFakeServices(connection, prefixes.main, { toolRunner: true, agents: [otherAgent] });
  startFakeServices(connection, prefixes.noModel, { toolRunner: true });
  startFakeServices(connection, prefixes.noTools, { toolRunner: false });
  const env = { OPENAI_BASE_URL: model.url, OPENAI_API_KEY: "k", LLM_MODEL: "scripted", MAX_ITERATIONS: "4" };
  started.push(
    await startTestOrchestrator(connection, prefixes.main, env),
    await startTestOrchestrator(connection, prefixes.noModel, {}),
    await startTestOrchestrator(connection, prefixes.noTools, env),
  );
});

afterAll(async () => {
  await Promise.all(started.map((orchestrator) => orchestrator.stop()));
  await model.close();
  await connection.drain();
});

describe("orchestrator turns", () => {
  it("refuses a turn with MODEL_NOT_CONFIGURED, naming the variables to set", async () => {
    const { final, events } = await runTurn(prefixes.noModel, "hi");
    expect(events).toHaveLength(1);
    expect(final).toMatchObject({ type: "error", error: { code: "MODEL_NOT_CONFIGURED", message: expect.stringContaining("OPENAI_BASE_URL") } });
  });

  it("refuses an unknown agent with AGENT_NOT_FOUND", async () => {
    const { final } = await runTurn(prefixes.main, "hi", { agentId: "ghost" });
    expect(final).toMatchObject({ type: "error", error: { code: "AGENT_NOT_FOUND" } });
  });

  it("loads the critical config through the tool-runner and puts its variables in the system prompt", async () => {
    model.enqueue({ text: "Hello Ada" });
    const { final } = await runTurn(prefixes.main, "hi");
    expect(final).toMatchObject({ type: "done", response: "Hello Ada", iterations: 1 });
    const system = String(model.requests.at(-1)?.body.messages[0]?.content);
    expect(system).toContain("- Greet Ada");
    expect(system).toContain("user_name: Ada");
  });

  it("stops the start with AGENT_INIT_FAILED naming the missing critical file", async () => {
    const saved = runner.files;
    runner.files = {};
    try {
      const { final } = await runTurn(prefixes.main, "hi");
      expect(final).toMatchObject({ type: "error", error: { code: "AGENT_INIT_FAILED", message: expect.stringContaining("{bundle-root}/config.yaml") } });
    } finally {
      runner.files = saved;
    }
  });

  it("gives the model SERVICE_UNAVAILABLE at once when no tool-runner is running (docs/security.md case 68)", async () => {
    const { final } = await runTurn(prefixes.noTools, "hi");
    expect(final).toMatchObject({ type: "error", error: { code: "AGENT_INIT_FAILED", message: expect.stringContaining("no tool-runner") } });
  });

  it("turns a model 400 into MODEL_UNAVAILABLE without retrying it", async () => {
    const before = model.requests.length;
    model.enqueue({ status: 400 });
    const { final } = await runTurn(prefixes.main, "hi");
    expect(final).toMatchObject({ type: "error", error: { code: "MODEL_UNAVAILABLE" } });
    expect(model.requests.length - before).toBe(1);
  });

  it("keeps the conversation in the session for the next turn, and reports usage", async () => {
    model.enqueue({ text: "first answer" });
    const first = await runTurn(prefixes.main, "first question");
    expect(first.final).toMatchObject({ type: "done", usage: { total_tokens: expect.any(Number) } });
    model.enqueue({ text: "second answer" });
    const second = await runTurn(prefixes.main, "second question", { sessionId: first.sessionId });
    expect(second.final).toMatchObject({ type: "done", response: "second answer" });
    // after the system prompt; the system's note of the day ends the first message
    const contents = model.requests.at(-1)?.body.messages.slice(1).map((message) => message.content);
    expect(contents).toEqual([expect.stringMatching(endsWithDateNote("first question")), "first answer", "second question"]);
  });

  it("refuses someone else's session as SESSION_NOT_FOUND, in turns and in look-ups", async () => {
    model.enqueue({ text: "mine" });
    const first = await runTurn(prefixes.main, "q");
    const other = await runTurn(prefixes.main, "x", { sessionId: first.sessionId, owner: "mallory" });
    expect(other.final).toMatchObject({ type: "error", error: { code: "SESSION_NOT_FOUND" } });
    const lookup = await requestJson(connection, prefixes.main + subjects.sessionGet, { session_id: first.sessionId, user: "mallory" }, SessionGetReply, {
      timeoutMs: 5_000,
    });
    expect(lookup).toMatchObject({ success: false, error: { code: "SESSION_NOT_FOUND" } });
  });

  it("refuses a chat continued with another agent as BAD_REQUEST, and asks the model nothing for it", async () => {
    model.enqueue({ text: "First answer" });
    const { sessionId, final: first } = await runTurn(prefixes.main, "hi");
    expect(first).toMatchObject({ type: "done" });
    const calls = model.requests.length;
    const { events, final } = await runTurn(prefixes.main, "again", { sessionId, agentId: otherAgent.id });
    expect(events).toHaveLength(1);
    expect(final).toMatchObject({ type: "error", error: { code: "BAD_REQUEST", message: `This session belongs to agent ${agent.id}` } });
    expect(model.requests.length).toBe(calls);
  });

  it("lists a user's own sessions and shows one with its visible messages", async () => {
    model.enqueue({ text: "listed answer" });
    const turn = await runTurn(prefixes.main, "list me", { owner: "lister" });
    const list = await requestJson(connection, prefixes.main + subjects.sessionList, { user: "lister" }, SessionListReply, { timeoutMs: 5_000 });
    expect(list.success && list.sessions.map((session) => session.id)).toEqual([turn.sessionId]);
    expect(list.success && list.sessions[0]).toMatchObject({ status: "completed", turns: 1, title: "list me", run_id: null, last_run_id: turn.runId });
    const view = await requestJson(connection, prefixes.main + subjects.sessionGet, { session_id: turn.sessionId, user: "lister" }, SessionGetReply, {
      timeoutMs: 5_000,
    });
    expect(view.success && view.session.messages).toEqual([
      { role: "user", content: "list me" },
      { role: "assistant", content: "listed answer" },
    ]);
  });

  it("cancels a running turn before its model answers; nothing is published after the final event", async () => {
    // the model would answer after 5 s: a CANCELLED final event shows the cancel stopped the turn first
    const requestsBefore = model.requests.length;
    model.enqueue({ text: "a slow answer that will be cut", delayMs: 5_000 });
    const sessionId = randomUUID();
    const turn = runTurn(prefixes.main, "slow", {
      sessionId: undefined,
      onEvent: (event) => {
        if (event.type === "session") {
          connection.publish(prefixes.main + subjects.runCancel(event.session_id), encodeJson({ session_id: event.session_id }));
        }
      },
    });
    const { final, sessionId: id } = await turn;
    expect(final).toMatchObject({ type: "error", error: { code: "CANCELLED" } });
    expect(sessionId).not.toBe(id);
    const late: unknown[] = [];
    const watcher = connection.subscribe(prefixes.main + subjects.sessionEvents(id), { callback: (_error, message) => late.push(message) });
    await connection.flush();
    // the model call was abandoned, not left to answer later: nothing is left that could publish for the turn
    const call = model.requests.slice(requestsBefore).find((request) => JSON.stringify(request.body.messages.at(-1)?.content).includes("slow"));
    expect(call).toBeDefined();
    expect(await call?.ended).toBe("abandoned");
    await connection.flush();
    watcher.unsubscribe();
    expect(late).toEqual([]);
    const view = await requestJson(connection, prefixes.main + subjects.sessionGet, { session_id: id, user: "ada" }, SessionGetReply, { timeoutMs: 5_000 });
    expect(view.success && view.session.status).toBe("cancelled");
  });

  it("drops a turn request that expired before any orchestrator could take it", async () => {
    const sessionId = randomUUID();
    const runId = randomUUID();
    const seen: unknown[] = [];
    const subscription = connection.subscribe(prefixes.main + subjects.runEvents(sessionId, runId), { callback: (_error, message) => seen.push(message) });
    const request = { run_id: runId, session_id: sessionId, new_session: true, agent_id: agent.id, message: "late", owner: "ada", expires_at: Date.now() - 1 };
    await connection.jetstream().publish(prefixes.main + subjects.runRequest(sessionId), encodeJson(request), { msgID: runId });
    // an orchestrator took it and decided: the work queue no longer holds it, and none holds it un-acknowledged
    const names = jetStreamNames(prefixes.main);
    const manager = await connection.jetstreamManager();
    await expect
      .poll(() => manager.streams.getMessage(names.runRequests, { last_by_subj: prefixes.main + subjects.runRequest(sessionId) }).then(() => "queued", () => "gone"), { timeout: 10_000 })
      .toBe("gone");
    expect((await manager.consumers.info(names.runRequests, names.runRequestsConsumer)).num_ack_pending).toBe(0);
    await connection.flush();
    subscription.unsubscribe();
    expect(seen).toEqual([]);
  });
});
