/**
 * run_subagent end to end: real NATS (the RUN_REQUESTS work queue carries the children), the scripted
 * model behind the real openai client, a fake registry and tool-runner. The orchestrator takes one turn at
 * a time (RUN_CONCURRENCY 1), so every child runs on a worker its waiting parent lent.
 */
import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { decodeJson, encodeJson, requestJson } from "@agent-orchestrator/shared/runtime";
import { RunCancel, RunEvent, SessionGetReply, subjects, type ToolContext, type ToolResult } from "@agent-orchestrator/shared/wire";
import { startHttpModel, type ChatRequestBody, type HttpModel, type ScriptedTurn } from "@agent-orchestrator/testing/http-model";
import { withoutSystemNote } from "@agent-orchestrator/testing/system-note";
import type { Orchestrator } from "../orchestrator-service.js";
import { runTestTurn, startFakeServices, startTestOrchestrator, testAgent } from "../testing/orchestrator-fixture.js";

const prefix = "sub1.";
/** an orchestrator whose subagents may run one second */
const shortPrefix = "sub2.";
let connection: NatsConnection;
let model: HttpModel;
const orchestrators: Orchestrator[] = [];
/** the tool calls the fake tool-runner received: tool, arguments, the session folder they ran in and their context */
const toolCalls: Array<{ tool: string; arguments: Record<string, unknown>; sessionId: string; context: ToolContext }> = [];

const files: Record<string, string> = {
  "{bundle-root}/config.yaml": "user_name: Ada\n",
  "{session-folder}/notes.md": "The launch date is fact-42.",
};

/** A tool-runner that serves `files` to read_file and knows one skill. */
function startFakeToolRunner(prefix: string): void {
  connection.subscribe(`${prefix}tool.*`, {
    callback: (_error, message) => {
      const body = JSON.parse(new TextDecoder().decode(message.data)) as { arguments: Record<string, unknown>; context: ToolContext };
      const tool = message.subject.slice(`${prefix}tool.`.length);
      toolCalls.push({ tool, arguments: body.arguments, sessionId: body.context.session_id, context: body.context });
      const path = String(body.arguments["file_path"] ?? "");
      const result: ToolResult =
        tool === "load_skill" && body.arguments["name"] === "bmad-summarize"
          ? { success: true, name: "bmad-summarize", instructions: "SKILL: summarize in one line." }
          : tool === "read_file" && path in files
            ? { success: true, path, content: files[path] }
            : { success: false, error: { code: tool === "load_skill" ? "SKILL_NOT_FOUND" : "FILE_NOT_FOUND", message: "Not found" } };
      message.respond(encodeJson(result));
    },
  });
}

const isChild = (body: ChatRequestBody) => String(body.messages[0]?.content).includes("working as a subagent");
// the latest user message: a turn's own text or a child's task, without the system's note of the day that ends the first
const userText = (body: ChatRequestBody) => withoutSystemNote(String(body.messages.findLast((message) => message.role === "user")?.content));
const toolMessages = (body: ChatRequestBody) => body.messages.filter((message) => message.role === "tool").map((message) => JSON.parse(String(message.content)) as Record<string, unknown>);
const offeredTools = (body: ChatRequestBody) => (body.tools ?? []).map((tool) => tool.function.name);
const lastIsTool = (body: ChatRequestBody) => body.messages.at(-1)?.role === "tool";
const subagentCall = (prompt: string, extra: Record<string, unknown> = {}) => ({ name: "run_subagent", arguments: { prompt, ...extra } });

/** The test agent with a menu that invokes a skill: run_subagent is offered to agents that use skills. */
const skillUser = { ...testAgent, id: "skill-user", menu: [{ trigger: "SUM", description: "Summarize", skill: "bmad-summarize" }] };

/** Called with each request; tests set what it does. */
let respond: (body: ChatRequestBody) => ScriptedTurn | Promise<ScriptedTurn> = () => ({ text: "unscripted" });

beforeAll(async () => {
  connection = await connect({ servers: inject("natsUrl") });
  model = await startHttpModel({ responder: (body) => respond(body) });
  const env = { OPENAI_BASE_URL: model.url, OPENAI_API_KEY: "k", LLM_MODEL: "scripted", RUN_CONCURRENCY: "1" };
  for (const name of [prefix, shortPrefix]) {
    startFakeServices(connection, name, { toolRunner: false, agents: [skillUser] });
    startFakeToolRunner(name);
  }
  orchestrators.push(
    await startTestOrchestrator(connection, prefix, { ...env, MAX_TOOL_CALLS_PER_ANSWER: "64" }),
    await startTestOrchestrator(connection, shortPrefix, { ...env, SUBAGENT_TIMEOUT_MS: "1000" }),
  );
});

afterAll(async () => {
  await Promise.all(orchestrators.map((orchestrator) => orchestrator.stop()));
  await model.close();
  await connection.drain();
});

const turn = (message: string, options?: Parameters<typeof runTestTurn>[3]) =>
  runTestTurn(connection, prefix, message, { timeoutMs: 20_000, agentId: skillUser.id, ...options });

describe("run_subagent", () => {
  it("brings a child's own tool result back through the parent's answer, nested in the parent's events, with its usage counted", async () => {
    respond = (body) => {
      if (isChild(body)) {
        return lastIsTool(body)
          ? { text: `The notes say: ${String(toolMessages(body).at(-1)?.["content"])}` }
          : { toolCalls: [{ name: "read_file", arguments: { file_path: "{session-folder}/notes.md" } }] };
      }
      if (!lastIsTool(body)) return { toolCalls: [{ ...subagentCall("Read {session-folder}/notes.md and tell me the launch date"), id: "call_parent_1" }] };
      const child = toolMessages(body).at(-1) as { response: string };
      return { text: `My subagent found it. ${child.response}` };
    };
    const callsBefore = toolCalls.length;
    const { final, events, sessionId } = await turn("when is the launch?");

    expect(final).toMatchObject({ type: "done", response: "My subagent found it. The notes say: The launch date is fact-42." });
    // the child read in the parent's session folder
    const childReads = toolCalls.slice(callsBefore).filter((call) => call.tool === "read_file" && call.arguments["file_path"] === "{session-folder}/notes.md");
    expect(childReads).toMatchObject([{ tool: "read_file", arguments: { file_path: "{session-folder}/notes.md" }, sessionId }]);
    // and in its root chat's project, as the chat's owner
    const chat = await requestJson(connection, prefix + subjects.sessionGet, { session_id: sessionId, user: "ada" }, SessionGetReply, { timeoutMs: 5_000 });
    expect(chat.success && childReads[0]?.context).toMatchObject({ project_id: chat.success ? chat.session.project_id : "", user: "ada", agent_id: skillUser.id });
    // a watcher of the parent sees the child's tool call and answer nested under the run_subagent call, in the parent's seq
    expect(events.map((event) => event.seq)).toEqual(events.map((_event, index) => index));
    const nested = events.filter((event) => "parent_call_id" in event && event.parent_call_id !== undefined);
    expect(nested.every((event) => "parent_call_id" in event && event.parent_call_id === "call_parent_1")).toBe(true);
    expect(nested.filter((event) => event.type !== "delta").map((event) => event.type === "tool_call" || event.type === "tool_result" ? `${event.type}:${event.name}` : "")).toEqual([
      "tool_call:read_file",
      "tool_result:read_file",
    ]);
    expect(nested.filter((event) => event.type === "delta").map((event) => (event.type === "delta" ? event.text : "")).join("")).toContain("fact-42");
    const parentCalls = events.filter((event) => (event.type === "tool_call" || event.type === "tool_result") && !event.parent_call_id);
    expect(parentCalls.map((event) => event.type)).toEqual(["tool_call", "tool_result"]);
    expect(parentCalls[1]).toMatchObject({ name: "run_subagent", success: true, call_id: "call_parent_1" });
    // the parent's text deltas stay apart from the child's
    const own = events.filter((event) => event.type === "delta" && !event.parent_call_id).map((event) => (event.type === "delta" ? event.text : ""));
    expect(own.join("")).toBe("My subagent found it. The notes say: The launch date is fact-42.");

    // usage: the parent's two model calls plus the child's two
    if (final?.type !== "done") throw new Error("no done");
    expect(final.usage_by_call).toHaveLength(2);
    expect(final.usage_by_subagent).toHaveLength(1);
    expect(final.usage_by_subagent?.[0]?.call_id).toBe("call_parent_1");
    const sum = (values: Array<{ total_tokens: number }>) => values.reduce((total, usage) => total + usage.total_tokens, 0);
    const childTotal = final.usage_by_subagent?.[0]?.usage.total_tokens ?? 0;
    expect(childTotal).toBeGreaterThan(0);
    expect(final.usage.total_tokens).toBe(sum(final.usage_by_call) + childTotal);
    expect(final.session_usage.total_tokens).toBe(final.usage.total_tokens);

    // depth limit (SUBAGENT_MAX_DEPTH 1): the parent is offered run_subagent, the child is not
    const childRequests = model.requests.filter((request) => isChild(request.body));
    const parentRequests = model.requests.filter((request) => !isChild(request.body));
    expect(offeredTools(parentRequests.at(-1)!.body)).toContain("run_subagent");
    expect(childRequests.length).toBeGreaterThan(0);
    for (const request of childRequests) {
      expect(offeredTools(request.body)).not.toContain("run_subagent");
      expect(offeredTools(request.body)).toContain("read_file");
    }
  });

  it("runs two subagents of one answer in parallel: both start before either finishes", async () => {
    const before = model.requests.length;
    // each child's first model call is held until both children have made theirs: run one after the other, they never would
    let arrived = 0;
    let bothStarted!: () => void;
    const barrier = new Promise<void>((resolve) => (bothStarted = resolve));
    respond = async (body) => {
      if (isChild(body)) {
        if (lastIsTool(body)) return { text: `finished ${userText(body)}` };
        if (++arrived === 2) bothStarted();
        await barrier;
        return { toolCalls: [{ name: "read_file", arguments: { file_path: "{session-folder}/notes.md" } }] };
      }
      if (!lastIsTool(body)) return { toolCalls: [subagentCall("task A"), subagentCall("task B")] };
      return { text: toolMessages(body).map((result) => String(result["response"])).join(" + ") };
    };
    const { final } = await turn("do two things");
    expect(final).toMatchObject({ type: "done", response: "finished task A + finished task B" });

    const order = model.requests.slice(before).map((request) => request.body).filter(isChild).map((body) => `${userText(body)}:${lastIsTool(body) ? "last" : "first"}`);
    const lastFirst = Math.max(order.indexOf("task A:first"), order.indexOf("task B:first"));
    const firstLast = Math.min(order.indexOf("task A:last"), order.indexOf("task B:last"));
    expect(order).toHaveLength(4);
    expect(lastFirst).toBeLessThan(firstLast);
  });

  it("answers a flood of 50 subagent calls with 8 children and SUBAGENT_LIMIT for the rest; the turn ends well", async () => {
    const before = model.requests.length;
    respond = (body) => {
      if (isChild(body)) return { text: `ok ${userText(body)}` };
      if (!lastIsTool(body)) return { toolCalls: Array.from({ length: 50 }, (_unused, index) => ({ ...subagentCall(`job ${index}`), id: `job_${index}` })) };
      const results = toolMessages(body) as Array<{ success: boolean; error?: { code: string } }>;
      return { text: `${results.filter((result) => result.success).length} ran, ${results.filter((result) => result.error?.code === "SUBAGENT_LIMIT").length} refused` };
    };
    const { final, events } = await turn("flood");
    expect(final).toMatchObject({ type: "done", response: "8 ran, 42 refused" });
    // by call: the refused ones answer at once, so they come before the children's results
    const outcome = new Map(
      events.flatMap((event) => (event.type === "tool_result" && event.name === "run_subagent" && !event.parent_call_id ? [[event.call_id, event.error_code ?? "ok"]] : [])),
    );
    expect(Array.from({ length: 50 }, (_unused, index) => outcome.get(`job_${index}`))).toEqual([...Array(8).fill("ok"), ...Array(42).fill("SUBAGENT_LIMIT")]);
    // only the first eight reached the model
    const children = model.requests.slice(before).map((request) => request.body).filter(isChild).map(userText);
    expect(children.sort()).toEqual(Array.from({ length: 8 }, (_unused, index) => `job ${index}`).sort());
    expect(final?.type === "done" && final.usage_by_subagent).toHaveLength(8);
  });

  it("loads the named skill for the child before its first model call, and says why when the skill is missing", async () => {
    const before = model.requests.length;
    respond = (body) => {
      if (isChild(body)) return { text: `summary done (${toolMessages(body).length} preloaded)` };
      if (!lastIsTool(body)) return { toolCalls: [subagentCall("summarize the notes", { skill: "bmad-summarize" }), subagentCall("use a ghost skill", { skill: "bmad-ghost" })] };
      return { text: JSON.stringify(toolMessages(body).map((result) => result["success"] ? result["response"] : (result["error"] as { code: string }).code)) };
    };
    const { final, events } = await turn("summarize");
    expect(final).toMatchObject({ type: "done", response: JSON.stringify(["summary done (1 preloaded)", "SKILL_NOT_FOUND"]) });
    const child = model.requests.slice(before).map((request) => request.body).find(isChild);
    expect(String(child?.messages[0]?.content)).toContain("The skill bmad-summarize was loaded for you");
    expect(JSON.stringify(child?.messages.at(-1)?.content)).toContain("SKILL: summarize in one line.");
    const nestedLoads = events.filter((event) => event.type === "tool_result" && event.name === "load_skill" && event.parent_call_id);
    expect(nestedLoads.map((event) => event.type === "tool_result" && event.success).sort()).toEqual([false, true]);
  });

  it("stops a child at SUBAGENT_TIMEOUT_MS and gives its parent a SERVICE_TIMEOUT result to go on with", async () => {
    respond = (body) => {
      if (isChild(body)) return { text: "much too late", delayMs: 5_000 };
      if (!lastIsTool(body)) return { toolCalls: [subagentCall("take your time")] };
      return { text: `went on after ${String((toolMessages(body).at(-1)?.["error"] as { code: string }).code)}` };
    };
    const { final } = await runTestTurn(connection, shortPrefix, "slow child", { timeoutMs: 20_000, agentId: skillUser.id });
    expect(final).toMatchObject({ type: "done", response: "went on after SERVICE_TIMEOUT" });
  });

  it("cancels a child waiting on the model when its parent is cancelled", async () => {
    const childEvents: RunEvent[] = [];
    const cancels: RunCancel[] = [];
    let parentRun = { sessionId: "", runId: "" };
    let childWaiting!: () => void;
    const waiting = new Promise<void>((resolve) => (childWaiting = resolve));
    respond = async (body) => {
      if (isChild(body)) {
        childWaiting();
        return { text: "too late", delayMs: 10_000 };
      }
      return { toolCalls: [subagentCall("wait for ever")] };
    };
    const turnDone = turn("start and stop", {
      onEvent: (event) => {
        if (event.type !== "session") return;
        parentRun = { sessionId: event.session_id, runId: event.run_id };
        connection.subscribe(`${prefix}agent.run.child.events.${event.session_id}.*`, {
          callback: (_error, message) => childEvents.push(decodeJson(message.data, RunEvent)),
        });
        connection.subscribe(prefix + subjects.runCancel(event.session_id), { callback: (_error, message) => cancels.push(decodeJson(message.data, RunCancel)) });
      },
    });
    await waiting;
    // the user's Stop names the parent's run only: the child is stopped by its parent
    connection.publish(prefix + subjects.runCancel(parentRun.sessionId), encodeJson({ session_id: parentRun.sessionId, run_id: parentRun.runId }));
    const { final } = await turnDone;
    expect(final).toMatchObject({ type: "error", error: { code: "CANCELLED" } });
    await expect.poll(() => childEvents.at(-1), { timeout: 5_000 }).toMatchObject({ type: "error", error: { code: "CANCELLED" } });
    const childRunId = childEvents[0]?.run_id;
    expect(childEvents[0]).toMatchObject({ type: "session", agent_id: skillUser.id });
    expect(cancels).toContainEqual({ session_id: parentRun.sessionId, run_id: childRunId });
  });
});
