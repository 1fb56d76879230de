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
  RunStartReply,
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
  return startOrchestrator({ connection, config: parsed.value, logger, subjectPrefix: prefix, sessionBucket: `sessions-${prefix.slice(0, -1)}` });
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

/** Starts a turn and collects its events until done or error. */
async function runTurn(prefix: string, message: string, options: { sessionId?: string; agentId?: string } = {}) {
  const sessionId = options.sessionId ?? randomUUID();
  const runId = randomUUID();
  const subscription = connection.subscribe(prefix + subjects.runEvents(sessionId));
  const reply = await requestJson(
    connection,
    prefix + subjects.runStart,
    { run_id: runId, session_id: sessionId, new_session: !options.sessionId, agent_id: options.agentId ?? agent.id, message, owner: "ada" },
    RunStartReply,
    { timeoutMs: 5_000 },
  );
  const events: RunEvent[] = [];
  if (reply.success) {
    for await (const raw of subscription) {
      const event = decodeJson(raw.data, RunEvent);
      events.push(event);
      if (isFinalEvent(event)) break;
    }
  }
  subscription.unsubscribe();
  return { reply, events, final: events.at(-1), sessionId };
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
    const { reply } = await runTurn(prefixes.noModel, "hi");
    expect(reply).toMatchObject({ success: false, error: { code: "MODEL_NOT_CONFIGURED", message: expect.stringContaining("OPENAI_BASE_URL") } });
  });

  it("refuses an unknown agent with AGENT_NOT_FOUND", async () => {
    const { reply } = await runTurn(prefixes.main, "hi", { agentId: "ghost" });
    expect(reply).toMatchObject({ success: false, error: { code: "AGENT_NOT_FOUND" } });
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

  it("refuses someone else's session as SESSION_NOT_FOUND", async () => {
    model.enqueue({ text: "mine" });
    const first = await runTurn(prefixes.main, "q");
    const subscription = connection.subscribe(prefixes.main + subjects.runEvents(first.sessionId));
    const reply = await requestJson(
      connection,
      prefixes.main + subjects.runStart,
      { run_id: randomUUID(), session_id: first.sessionId, new_session: false, agent_id: agent.id, message: "x", owner: "mallory" },
      RunStartReply,
      { timeoutMs: 5_000 },
    );
    subscription.unsubscribe();
    expect(reply).toMatchObject({ success: false, error: { code: "SESSION_NOT_FOUND" } });
  });
});
