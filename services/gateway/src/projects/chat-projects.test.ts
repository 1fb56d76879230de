import { once } from "node:events";
import { afterEach, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import WebSocket from "ws";
import { encodeJson } from "@agent-orchestrator/shared/runtime";
import { subjects, zeroUsage, type RunEventBody, type RunStartRequest } from "@agent-orchestrator/shared/wire";
import { FakeFileStore } from "../testing/fake-file-store.js";
import { FakeOrchestrator } from "../testing/fake-orchestrator.js";
import { gatewayFixture, tokens, type FixtureUser } from "../testing/gateway-fixture.js";

const fixture = gatewayFixture();
const orchestrator = new FakeOrchestrator(fixture);
const store = new FakeFileStore(fixture);
beforeAll(() => {
  orchestrator.answer();
  store.answer();
  orchestrator.addProject("team", "alice", { bob: "editor", carol: "viewer" });
});

const sockets: WebSocket[] = [];
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.close();
});

const json = async (response: Response) => ({ status: response.status, body: (await response.json()) as Record<string, any> });
const post = (user: FixtureUser, path: string, body: unknown, headers: Record<string, string> = {}) =>
  fixture.api(user, path, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json", ...headers } });
/** The turn request the orchestrator received for a chat. */
const turnOf = (sessionId: string) => orchestrator.requests(subjects.runRequest(sessionId)).at(-1) as RunStartRequest;

async function openSocket(user: FixtureUser): Promise<{ socket: WebSocket; next: (type: string) => Promise<Record<string, any>> }> {
  const socket = new WebSocket(`${fixture.url().replace("http", "ws")}/ws`, { headers: { authorization: `Bearer ${tokens[user]}` } });
  sockets.push(socket);
  const received: Record<string, any>[] = [];
  const waiting: { type: string; resolve: (message: Record<string, any>) => void }[] = [];
  socket.on("message", (data) => {
    received.push(JSON.parse(String(data)) as Record<string, any>);
    for (const waiter of [...waiting]) {
      const index = received.findIndex((message) => message["type"] === waiter.type);
      if (index < 0) continue;
      waiting.splice(waiting.indexOf(waiter), 1);
      waiter.resolve(received.splice(index, 1)[0] as Record<string, any>);
    }
  });
  await once(socket, "open");
  const next = (type: string) =>
    new Promise<Record<string, any>>((resolve) => {
      const index = received.findIndex((message) => message["type"] === type);
      if (index >= 0) resolve(received.splice(index, 1)[0] as Record<string, any>);
      else waiting.push({ type, resolve });
    });
  return { socket, next };
}

describe("a chat's project", () => {
  it("POST /api/chat starts the chat in the named project and says which", async () => {
    const { status, body } = await json(await post("bob", "/api/chat", { agent_id: "a", message: "hi", project_id: "team" }));
    expect(status).toBe(200);
    expect(body).toMatchObject({ success: true, project_id: "team", response: "ok" });
    expect(turnOf(body["session_id"] as string)).toMatchObject({ owner: "bob", project_id: "team", new_session: true });
  });

  it("POST /api/chat without a project, or with `default`, leaves the orchestrator to use the default project, and answers its id", async () => {
    for (const extra of [{}, { project_id: "default" }]) {
      const { body } = await json(await post("alice", "/api/chat", { agent_id: "a", message: "hi", ...extra }));
      expect(body["project_id"]).toBe(FakeOrchestrator.defaultProjectOf("alice"));
      expect(turnOf(body["session_id"] as string).project_id).toBeUndefined();
    }
  });

  it("streams a `session` event that names the project", async () => {
    const response = await post("bob", "/api/chat", { agent_id: "a", message: "hi", project_id: "team" }, { accept: "text/event-stream" });
    const text = await response.text();
    const session = text.split("\n\n").find((block) => block.startsWith("event: session"));
    expect(session).toContain('"project_id":"team"');
  });

  it("a WebSocket chat passes project_id on", async () => {
    const { socket, next } = await openSocket("bob");
    socket.send(JSON.stringify({ type: "chat", agent_id: "a", message: "hi", project_id: "team" }));
    const session = await next("session");
    expect(session["project_id"]).toBe("team");
    await next("done");
    expect(turnOf(session["session_id"] as string).project_id).toBe("team");
  });

  it("/v1/chat/completions takes the project from x-project-id (default without), and names it in the reply", async () => {
    const completion = { model: "a", messages: [{ role: "user", content: "hi" }] };
    const named = await post("bob", "/v1/chat/completions", completion, { "x-project-id": "team" });
    expect(named.status).toBe(200);
    expect(named.headers.get("x-project-id")).toBe("team");
    expect(turnOf(named.headers.get("x-session-id") as string).project_id).toBe("team");
    const unnamed = await post("bob", "/v1/chat/completions", completion);
    expect(unnamed.headers.get("x-project-id")).toBe(FakeOrchestrator.defaultProjectOf("bob"));
    expect(turnOf(unnamed.headers.get("x-session-id") as string).project_id).toBeUndefined();
    const mismatch = await post("bob", "/v1/chat/completions", { ...completion, project_id: "other" }, { "x-project-id": "team" });
    expect(mismatch.status).toBe(400);
  });

  it("the MCP `chat` tool passes project_id on and returns it, with the files the chat wrote by their virtual paths", async () => {
    store.put({ kind: "project", id: "team" }, "docs/other.md", "another chat's", { user: "alice", session_id: "another-chat" });
    orchestrator.onTurn = ({ owner, session_id }) => {
      store.put({ kind: "project", id: "team" }, "docs/brief.md", "# Brief", { user: owner, session_id });
      store.put({ kind: "session", id: session_id }, "memlog/notes.md", "scratch", { user: owner, session_id });
    };
    onTestFinished(() => {
      orchestrator.onTurn = () => undefined;
    });
    const response = await post(
      "bob",
      "/mcp",
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "chat", arguments: { agent_id: "a", message: "hi", project_id: "team" } } },
      { accept: "application/json, text/event-stream" },
    );
    const data = (await response.text()).split("\n").find((line) => line.startsWith("data: "));
    const result = (JSON.parse(String(data).slice(6)) as { result: { structuredContent: Record<string, unknown> } }).result.structuredContent;
    expect(result).toMatchObject({ success: true, project_id: "team" });
    expect((result["files"] as { path: string }[]).map((file) => file.path)).toEqual(["{project-root}/docs/brief.md", "{session-folder}/memlog/notes.md"]);
    expect(turnOf(result["session_id"] as string).project_id).toBe("team");
  });
});

describe("a project's chats", () => {
  it("are listed per project, for the calling user", async () => {
    const listed = await json(await fixture.api("carol", "/api/sessions?project_id=team"));
    expect(listed.status).toBe(200);
    expect(orchestrator.requests(subjects.sessionList).at(-1)).toEqual({ user: "carol", project_id: "team" });
    await fixture.api("carol", "/api/sessions?project_id=default");
    expect(orchestrator.requests(subjects.sessionList).at(-1)).toEqual({ user: "carol", project_id: FakeOrchestrator.defaultProjectOf("carol") });
    await fixture.api("carol", "/api/sessions");
    expect(orchestrator.requests(subjects.sessionList).at(-1)).toEqual({ user: "carol" });
  });

  it("can be watched by a viewer while a turn runs; a non-member is told the chat does not exist", async () => {
    const chat = orchestrator.addChat("watched", "team", "alice", "running");
    const viewer = await openSocket("carol");
    viewer.socket.send(JSON.stringify({ type: "watch", session_id: chat.id }));
    const stranger = await openSocket("dave");
    stranger.socket.send(JSON.stringify({ type: "watch", session_id: chat.id }));
    expect((await stranger.next("error"))["error"]).toMatchObject({ code: "SESSION_NOT_FOUND" });
    // the watch's consumer starts at the running turn's start, so events published now reach it
    const runId = chat.run_id as string;
    const events: RunEventBody[] = [
      { type: "session", agent_id: "a", project_id: "team", attempt: 1 },
      { type: "done", response: "watched", iterations: 1, usage: zeroUsage(), usage_by_call: [], session_usage: zeroUsage() },
    ];
    events.forEach((event, seq) =>
      fixture.connection().publish(fixture.prefix + subjects.runEvents(chat.id, runId), encodeJson({ ...event, session_id: chat.id, run_id: runId, seq })),
    );
    expect(await viewer.next("done")).toMatchObject({ session_id: chat.id, response: "watched" });
  });

  it("have their turns cancelled by their owner only: another member gets 403", async () => {
    const chat = orchestrator.addChat("busy-chat", "team", "alice", "running");
    expect(await json(await post("bob", `/api/sessions/${chat.id}/cancel`, {}))).toMatchObject({ status: 403, body: { error: { code: "PROJECT_FORBIDDEN" } } });
    expect(await json(await post("dave", `/api/sessions/${chat.id}/cancel`, {}))).toMatchObject({ status: 404, body: { error: { code: "SESSION_NOT_FOUND" } } });
    expect(await json(await post("alice", `/api/sessions/${chat.id}/cancel`, {}))).toEqual({ status: 200, body: { success: true, cancelled: true } });
  });

  it("are read by any member with the user sent to the orchestrator", async () => {
    orchestrator.addChat("read-chat", "team", "alice");
    expect((await json(await fixture.api("carol", "/api/sessions/read-chat"))).body).toMatchObject({ success: true, session: { id: "read-chat", project_id: "team", owner: "alice" } });
    expect(orchestrator.requests(subjects.sessionGet).at(-1)).toEqual({ session_id: "read-chat", user: "carol" });
  });
});
