import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { requestJson } from "@agent-orchestrator/shared/runtime";
import {
  GreetingReply,
  ProjectMembersReply,
  ProjectReply,
  SessionGetReply,
  SessionListReply,
  SessionStartReply,
  subjects,
  type AgentDefinition,
} from "@agent-orchestrator/shared/wire";
import { startHttpModel, type HttpModel } from "@agent-orchestrator/testing/http-model";
import { dateNoteAlone } from "@agent-orchestrator/testing/system-note";
import type { Orchestrator } from "../orchestrator-service.js";
import { runTestTurn, startFakeServices, startTestOrchestrator, testAgent } from "../testing/orchestrator-fixture.js";

const prefix = "greet1.";
let connection: NatsConnection;
let model: HttpModel;
let orchestrator: Orchestrator;

/** the fixture's agent (its critical action loads `user_name: Ada`) with a menu */
const menuAgent: AgentDefinition = {
  ...testAgent,
  id: "menu-tester",
  menu: [
    { trigger: "*help", description: "Show the menu" },
    { trigger: "*brief", description: "Write a brief", workflow: "{bundle-root}/brief.yaml" },
  ],
};

beforeAll(async () => {
  connection = await connect({ servers: inject("natsUrl") });
  model = await startHttpModel({ responder: () => ({ text: "Let us write a brief." }) });
  startFakeServices(connection, prefix, { toolRunner: true, agents: [menuAgent] });
  orchestrator = await startTestOrchestrator(connection, prefix, { OPENAI_BASE_URL: model.url, OPENAI_API_KEY: "k", LLM_MODEL: "scripted" });
});

afterAll(async () => {
  await orchestrator.stop();
  await model.close();
  await connection.drain();
});

const request = <S extends Parameters<typeof requestJson>[3]>(subject: string, body: Record<string, unknown>, schema: S) =>
  requestJson(connection, prefix + subject, body, schema, { timeoutMs: 10_000 });
const startChat = (body: Record<string, unknown>) => request(subjects.sessionStart, body, SessionStartReply);
const preview = (body: Record<string, unknown>) => request(subjects.sessionGreeting, body, GreetingReply);

describe("a chat started with its agent's greeting", () => {
  it("is stored idle, without a turn, with the greeting as its first assistant message, in the caller's default project", async () => {
    const modelCalls = model.requests.length;
    const reply = await startChat({ user: "ada", agent_id: menuAgent.id });
    if (!reply.success) throw new Error(reply.error.message);
    expect(reply.greeting).toMatchObject({ user_name: "Ada", language: "English", menu: [{ number: 1, trigger: "*help", description: "Show the menu" }, { number: 2, trigger: "*brief" }] });
    expect(reply.greeting.text).toContain("Hello Ada! I'm Tess, your Test Agent.\nMy role: Tester.\n\nHere is what I can do:\n1. *help — Show the menu\n2. *brief — Write a brief");
    const chat = await request(subjects.sessionGet, { session_id: reply.session_id, user: "ada" }, SessionGetReply);
    if (!chat.success) throw new Error(chat.error.message);
    expect(chat.session).toMatchObject({ agent_id: menuAgent.id, project_id: reply.project_id, owner: "ada", status: "idle", turns: 0, run_id: null, last_run_id: null });
    expect(chat.session.messages).toEqual([{ role: "assistant", content: reply.greeting.text }]);
    expect(model.requests).toHaveLength(modelCalls);
  });

  it("continues with the next turn, whose model request has the greeting as the assistant message before the user's", async () => {
    const started = await startChat({ user: "ada", agent_id: menuAgent.id });
    if (!started.success) throw new Error(started.error.message);
    const { final } = await runTestTurn(connection, prefix, "2", { sessionId: started.session_id, agentId: menuAgent.id, timeoutMs: 20_000 });
    expect(final).toMatchObject({ type: "done", response: "Let us write a brief." });
    const messages = model.requests.at(-1)?.body.messages ?? [];
    // the conversation starts with the greeting, so the note of the day is a user message of its own before it
    expect(messages.slice(1)).toEqual([
      { role: "user", content: expect.stringMatching(dateNoteAlone) },
      { role: "assistant", content: started.greeting.text },
      { role: "user", content: "2" },
    ]);
    const chat = await request(subjects.sessionGet, { session_id: started.session_id, user: "ada" }, SessionGetReply);
    if (!chat.success) throw new Error(chat.error.message);
    expect(chat.session).toMatchObject({ status: "completed", turns: 1, title: "2" });
    expect(chat.session.usage.total_tokens).toBeGreaterThan(0);
    expect(chat.session.messages.map((message) => message.role)).toEqual(["assistant", "user", "assistant"]);
  });

  it("lets the owner and editors start one, and refuses a viewer with PROJECT_FORBIDDEN and a stranger like a missing project", async () => {
    const project = await request(subjects.projectRequest("create"), { user: "olga", name: "Launch" }, ProjectReply);
    if (!project.success) throw new Error(project.error.message);
    const projectId = project.project.id;
    await request(subjects.projectRequest("member_put"), { user: "olga", project_id: projectId, member: "eddie", role: "editor" }, ProjectMembersReply);
    await request(subjects.projectRequest("member_put"), { user: "olga", project_id: projectId, member: "vera", role: "viewer" }, ProjectMembersReply);
    expect(await startChat({ user: "eddie", agent_id: menuAgent.id, project_id: projectId })).toMatchObject({ success: true, project_id: projectId });
    expect(await startChat({ user: "vera", agent_id: menuAgent.id, project_id: projectId })).toMatchObject({ success: false, error: { code: "PROJECT_FORBIDDEN" } });
    expect(await startChat({ user: "mallory", agent_id: menuAgent.id, project_id: projectId })).toMatchObject({ success: false, error: { code: "PROJECT_NOT_FOUND" } });
    // a viewer may still see what the agent would say
    expect(await preview({ user: "vera", agent_id: menuAgent.id, project_id: projectId })).toMatchObject({ success: true, project_id: projectId });
  });

  it("answers an unknown agent with AGENT_NOT_FOUND and makes no chat", async () => {
    expect(await startChat({ user: "nobody-yet", agent_id: "ghost" })).toMatchObject({ success: false, error: { code: "AGENT_NOT_FOUND" } });
    const chats = await request(subjects.sessionList, { user: "nobody-yet" }, SessionListReply);
    expect(chats).toEqual({ success: true, sessions: [] });
  });
});

describe("a greeting preview", () => {
  it("gives the same greeting and stores nothing", async () => {
    const shown = await preview({ user: "pia", agent_id: menuAgent.id });
    if (!shown.success) throw new Error(shown.error.message);
    expect(shown.greeting.text).toMatch(/^Hello Ada! I'm Tess, your Test Agent\./);
    const chats = await request(subjects.sessionList, { user: "pia" }, SessionListReply);
    expect(chats).toEqual({ success: true, sessions: [] });
    const started = await startChat({ user: "pia", agent_id: menuAgent.id });
    expect(started).toMatchObject({ success: true, project_id: shown.project_id, greeting: shown.greeting });
  });
});
