import { randomUUID } from "node:crypto";
import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  createLogger,
  decodeJson,
  encodeJson,
  isFinalEvent,
  parseEnv,
  requestJson,
  RunEvent,
  SessionGetReply,
  SessionListReply,
  subjects,
  type AgentDefinition,
  type ToolResult,
} from "@agent-orchestrator/shared";
import { startScriptedModel, type ScriptedModel } from "../../../test/support/scripted-model.js";
import { orchestratorEnvSchema } from "./config.js";
import { startOrchestrator, type Orchestrator } from "./orchestrator-service.js";

const agent: AgentDefinition = {
  id: "tester",
  name: "Tess",
  title: "Test Agent",
  icon: "🧪",
  description: "",
  bundleName: "tests",
  source: "bundle",
  persona: { role: "Tester", identity: "", communication_style: "", principles: "" },
  criticalActions: ["Load into memory {bundle-root}/config.yaml and set variables: user_name", "Greet {user_name}"],
  menu: [],
  bundlePath: "bmad/custom/bundles/tests",
  filePath: "bmad/custom/bundles/tests/agents/tester.md",
};

let connection: NatsConnection;
let model: ScriptedModel;
const logger = createLogger("orchestrator-test", "silent");
/** tool calls the fake tool-runner received, by subject */
const toolCalls: Array<{ subject: string; body: Record<string, unknown> }> = [];
let files: Record<string, string> = { "{bundle-root}/config.yaml": "user_name: Ada\n" };

async function startWith(prefix: string, env: Record<string, string>): Promise<Orchestrator> {
  const parsed = parseEnv(orchestratorEnvSchema, { MODEL_MAX_RETRIES: "0", ...env });
  if (!parsed.ok) throw new Error(parsed.message);
  return startOrchestrator({ connection, config: parsed.value, logger, subjectPrefix: prefix });
}

/** Fake registry and tool-runner for one prefix: real NATS subscriptions answering like the real services. */
function fakeServices(prefix: string, options: { toolRunner: boolean }): void {
  connection.subscribe(prefix + subjects.registryAgentsGet, {
    callback: (_error, message) => {
      const { agent_id } = JSON.parse(new TextDecoder().decode(message.data)) as { agent_id: string };
      message.respond(
        encodeJson(agent_id === agent.id ? { success: true, agent } : { success: false, error: { code: "AGENT_NOT_FOUND", message: "Agent not found" } }),
      );
    },
  });
  if (!options.toolRunner) return;
  connection.subscribe(`${prefix}tool.*`, {
    callback: (_error, message) => {
      const body = JSON.parse(new TextDecoder().decode(message.data)) as { arguments: { file_path?: string } };
      toolCalls.push({ subject: message.subject, body });
      const path = body.arguments.file_path ?? "";
      const result: ToolResult =
        path in files ? { success: true, path, content: files[path] } : { success: false, error: { code: "FILE_NOT_FOUND", message: "File not found" } };
      message.respond(encodeJson(result));
    },
  });
  connection.subscribe(prefix + subjects.sessionManifestUpdate, {
    callback: (_error, message) => message.respond(encodeJson({ success: false, error: { code: "INTERNAL", message: "not kept in this test" } })),
  });
}

/** Queues a turn like the gateway does and collects its events until done or error. */
async function runTurn(
  prefix: string,
  message: string,
  options: { sessionId?: string; agentId?: string; owner?: string; expiresAt?: number; onEvent?: (event: RunEvent) => void } = {},
) {
  const sessionId = options.sessionId ?? randomUUID();
  const runId = randomUUID();
  const subscription = connection.subscribe(prefix + subjects.runEvents(sessionId, runId));
  const request = {
    run_id: runId,
    session_id: sessionId,
    new_session: !options.sessionId,
    agent_id: options.agentId ?? agent.id,
    message,
    owner: options.owner ?? "ada",
    expires_at: options.expiresAt ?? Date.now() + 60_000,
  };
  await connection.jetstream().publish(prefix + subjects.runRequest(sessionId), encodeJson(request), { msgID: runId });
  const events: RunEvent[] = [];
  const timer = setTimeout(() => subscription.unsubscribe(), 10_000);
  for await (const raw of subscription) {
    const event = decodeJson(raw.data, RunEvent);
    events.push(event);
    options.onEvent?.(event);
    if (isFinalEvent(event)) break;
  }
  clearTimeout(timer);
  subscription.unsubscribe();
  return { events, final: events.at(-1), sessionId, runId };
}

const prefixes = { main: "o1.", noModel: "o2.", noTools: "o3." };
const started: Orchestrator[] = [];

beforeAll(async () => {
  connection = await connect({ servers: inject("natsUrl") });
  model = await startScriptedModel();
  fakeServices(prefixes.main, { toolRunner: true });
  fakeServices(prefixes.noModel, { toolRunner: true });
  fakeServices(prefixes.noTools, { toolRunner: false });
  const env = { OPENAI_BASE_URL: model.url, OPENAI_API_KEY: "k", LLM_MODEL: "scripted", MAX_ITERATIONS: "4" };
  started.push(await startWith(prefixes.main, env), await startWith(prefixes.noModel, {}), await startWith(prefixes.noTools, env));
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
    const saved = files;
    files = {};
    try {
      const { final } = await runTurn(prefixes.main, "hi");
      expect(final).toMatchObject({ type: "error", error: { code: "AGENT_INIT_FAILED", message: expect.stringContaining("{bundle-root}/config.yaml") } });
    } finally {
      files = saved;
    }
  });

  it("feeds invalid JSON arguments back to the model as a tool error and goes on (case 39)", async () => {
    model.enqueue({ toolCalls: [{ name: "read_file", arguments: '{"file_path": "a.txt"' }] }, { text: "recovered" });
    const before = toolCalls.length;
    const { final, events } = await runTurn(prefixes.main, "go");
    expect(final).toMatchObject({ type: "done", response: "recovered", iterations: 2 });
    expect(events.find((event) => event.type === "tool_result")).toMatchObject({ success: false, error_code: "INVALID_TOOL_CALL" });
    const toolMessage = model.requests.at(-1)?.body.messages.find((message) => message.role === "tool");
    expect(String(toolMessage?.content)).toContain("not valid JSON");
    // the critical action is the only call that reached the tool-runner
    expect(toolCalls.length - before).toBe(1);
  });

  it("treats unknown and prototype tool names as unknown without any NATS request, and 3 in a row end the turn (cases 42, 43)", async () => {
    model.enqueue({
      toolCalls: [
        { name: "delete_everything", arguments: {} },
        { name: "constructor", arguments: {} },
        { name: "__proto__", arguments: {} },
      ],
    });
    const before = toolCalls.length;
    const { final, events } = await runTurn(prefixes.main, "go");
    const results = events.filter((event) => event.type === "tool_result");
    expect(results.map((event) => event.type === "tool_result" && event.error_code)).toEqual(["UNKNOWN_TOOL", "UNKNOWN_TOOL", "UNKNOWN_TOOL"]);
    expect(final).toMatchObject({ type: "error", error: { code: "INVALID_TOOL_CALL" } });
    // only the critical action reached the tool-runner
    expect(toolCalls.length - before).toBe(1);
  });

  it("rejects arguments that fail the schema with a short error (case 40)", async () => {
    model.enqueue({ toolCalls: [{ name: "read_file", arguments: { paths: "a", extra: 1 } }] }, { text: "fine" });
    const { final } = await runTurn(prefixes.main, "go");
    expect(final).toMatchObject({ type: "done", response: "fine" });
    const toolMessage = model.requests.at(-1)?.body.messages.find((message) => message.role === "tool");
    expect(String(toolMessage?.content)).toContain("Invalid arguments for read_file");
  });

  it("ends a turn that never stops calling tools with MAX_ITERATIONS, not a crash (case 46)", async () => {
    for (let index = 0; index < 4; index++) model.enqueue({ toolCalls: [{ name: "read_file", arguments: { file_path: "{bundle-root}/config.yaml" } }] });
    const { final } = await runTurn(prefixes.main, "loop");
    expect(final).toMatchObject({ type: "error", error: { code: "MAX_ITERATIONS" } });
  });

  it("gives the model SERVICE_UNAVAILABLE at once when no tool-runner is running (case 68)", async () => {
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
    const contents = model.requests.at(-1)?.body.messages.slice(1).map((message) => message.content);
    expect(contents).toEqual(["first question", "first answer", "second question"]);
  });

  it("refuses someone else's session as SESSION_NOT_FOUND, in turns and in look-ups", async () => {
    model.enqueue({ text: "mine" });
    const first = await runTurn(prefixes.main, "q");
    const other = await runTurn(prefixes.main, "x", { sessionId: first.sessionId, owner: "mallory" });
    expect(other.final).toMatchObject({ type: "error", error: { code: "SESSION_NOT_FOUND" } });
    const lookup = await requestJson(connection, prefixes.main + subjects.sessionGet, { session_id: first.sessionId, owner: "mallory" }, SessionGetReply, {
      timeoutMs: 5_000,
    });
    expect(lookup).toMatchObject({ success: false, error: { code: "SESSION_NOT_FOUND" } });
  });

  it("lists a user's own sessions and shows one with its visible messages", async () => {
    model.enqueue({ text: "listed answer" });
    const turn = await runTurn(prefixes.main, "list me", { owner: "lister" });
    const list = await requestJson(connection, prefixes.main + subjects.sessionList, { owner: "lister" }, SessionListReply, { timeoutMs: 5_000 });
    expect(list.success && list.sessions.map((session) => session.id)).toEqual([turn.sessionId]);
    expect(list.success && list.sessions[0]).toMatchObject({ status: "completed", turns: 1, title: "list me", run_id: null, last_run_id: turn.runId });
    const view = await requestJson(connection, prefixes.main + subjects.sessionGet, { session_id: turn.sessionId, owner: "lister" }, SessionGetReply, {
      timeoutMs: 5_000,
    });
    expect(view.success && view.session.messages).toEqual([
      { role: "user", content: "list me" },
      { role: "assistant", content: "listed answer" },
    ]);
  });

  it("cancels a running turn within a second; nothing is published after the final event", async () => {
    model.enqueue({ text: "a slow answer that will be cut", delayMs: 5_000 });
    const sessionId = randomUUID();
    const started = Date.now();
    let cancelledAt = 0;
    const turn = runTurn(prefixes.main, "slow", {
      sessionId: undefined,
      onEvent: (event) => {
        if (event.type === "session") {
          cancelledAt = Date.now();
          connection.publish(prefixes.main + subjects.runCancel(event.session_id), encodeJson({ session_id: event.session_id }));
        }
      },
    });
    const { final, sessionId: id } = await turn;
    expect(final).toMatchObject({ type: "error", error: { code: "CANCELLED" } });
    expect(Date.now() - cancelledAt).toBeLessThan(1_000);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(sessionId).not.toBe(id);
    const late: unknown[] = [];
    const watcher = connection.subscribe(prefixes.main + subjects.sessionEvents(id), { callback: (_error, message) => late.push(message) });
    await new Promise((resolve) => setTimeout(resolve, 300));
    watcher.unsubscribe();
    expect(late).toEqual([]);
    const view = await requestJson(connection, prefixes.main + subjects.sessionGet, { session_id: id, owner: "ada" }, SessionGetReply, { timeoutMs: 5_000 });
    expect(view.success && view.session.status).toBe("cancelled");
  });

  it("drops a turn request that expired before any orchestrator could take it", async () => {
    const sessionId = randomUUID();
    const runId = randomUUID();
    const seen: unknown[] = [];
    const subscription = connection.subscribe(prefixes.main + subjects.runEvents(sessionId, runId), { callback: (_error, message) => seen.push(message) });
    const request = { run_id: runId, session_id: sessionId, new_session: true, agent_id: agent.id, message: "late", owner: "ada", expires_at: Date.now() - 1 };
    await connection.jetstream().publish(prefixes.main + subjects.runRequest(sessionId), encodeJson(request), { msgID: runId });
    await new Promise((resolve) => setTimeout(resolve, 500));
    subscription.unsubscribe();
    expect(seen).toEqual([]);
  });
});
