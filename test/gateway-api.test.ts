/**
 * The public API with authentication on (docs/api.md "Authentication"): two users who cannot see each other's sessions or
 * files, cancel, re-attach after a dropped connection, the WebSocket, limits and metrics. Real processes,
 * a private nats-server, the scripted model.
 */
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { connect } from "nats";
import WebSocket from "ws";
import { jetStreamNames, subjects } from "@agent-orchestrator/shared/wire";
import { testNatsCredentials } from "@agent-orchestrator/testing/nats-harness";
import { lastMessage, type ChatRequestBody, type ScriptedTurn } from "@agent-orchestrator/testing/http-model";
import { withoutSystemNote } from "@agent-orchestrator/testing/system-note";
import { repoRoot, startServiceProcess } from "@agent-orchestrator/testing/service-processes";
import { recordMessages, type SocketMessages } from "@agent-orchestrator/testing/socket-messages";
import { readSse } from "@agent-orchestrator/testing/sse";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";

const alice = "alice-token-1111";
const bob = "bob-token-22222";
let system: TestSystem;

function respond(request: ChatRequestBody): ScriptedTurn {
  const last = lastMessage(request);
  const users = request.messages.filter((message) => message.role === "user");
  const said = withoutSystemNote(String(users.at(-1)?.content ?? ""));
  if (last?.role === "tool") return { text: "Saved **brief.md** for you." };
  if (said.startsWith("save")) {
    return { toolCalls: [{ name: "save_output", arguments: { file_path: "{session-folder}/brief.md", content: "# Brief\n\nAlice's idea.\n" } }] };
  }
  if (said.startsWith("slow")) return { text: "one two three four five six seven eight nine ten", chunkDelayMs: 300 };
  if (said.startsWith("stall")) return { text: "never seen", delayMs: 20_000 };
  return { text: `echo: ${said}` };
}

beforeAll(async () => {
  system = await startTestSystem({
    responder: respond,
    // the longest pickup limit: a chat no orchestrator takes is answered only by the early orchestrator count
    // ("without an orchestrator"), never by the limit within a test's time
    env: { AUTH_TOKENS: `alice:${alice},bob:${bob}`, HOST: "127.0.0.1", BODY_LIMIT_BYTES: "8192", RUN_PICKUP_TIMEOUT_MS: "600000" },
  });
}, 60_000);

afterAll(() => system?.stop());

const api = (path: string, token: string | undefined, init: RequestInit = {}) =>
  fetch(`${system.url}${path}`, {
    ...init,
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}), ...(init.headers as Record<string, string>) },
  });
const chat = (token: string, body: Record<string, unknown>, accept = "application/json") =>
  api("/api/chat", token, { method: "POST", body: JSON.stringify(body), headers: { accept } });
const json = async (response: Response) => (await response.json()) as Record<string, any>;

describe("authentication", () => {
  it("needs a bearer token on /api, with 401 in the error shape", async () => {
    for (const token of [undefined, "wrong-token-000"]) {
      const response = await api("/api/agents", token);
      expect(response.status).toBe(401);
      expect(await json(response)).toEqual({ success: false, error: { code: "UNAUTHORIZED", message: expect.any(String) } });
    }
    expect((await api("/api/agents", alice)).status).toBe(200);
  });

  it("leaves /healthz open and sets the request id and security headers", async () => {
    const response = await fetch(`${system.url}/healthz`, { headers: { "x-request-id": "trace-123" } });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-request-id")).toBe("trace-123");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
  });
});

describe("two users", () => {
  let aliceSession: string;

  beforeAll(async () => {
    const body = await json(await chat(alice, { agent_id: "idea-coach", message: "save my brief" }));
    aliceSession = body["session_id"];
  });

  it("each sees only their own sessions", async () => {
    const mine = await json(await api("/api/sessions", alice));
    expect(mine["sessions"].map((session: { id: string }) => session.id)).toContain(aliceSession);
    const theirs = await json(await api("/api/sessions", bob));
    expect(theirs["sessions"].map((session: { id: string }) => session.id)).not.toContain(aliceSession);
  });

  it("shows the owner one session with its visible messages, its owner and its project, and 404 to anyone else", async () => {
    const view = await json(await api(`/api/sessions/${aliceSession}`, alice));
    expect(view["session"]).toMatchObject({ id: aliceSession, status: "completed", turns: 1 });
    expect(view["session"]["messages"]).toEqual([
      { role: "user", content: "save my brief" },
      { role: "assistant", content: "Saved **brief.md** for you." },
    ]);
    // a chat that names no project is in its owner's personal default project (docs/projects.md)
    const defaultProject = await json(await api("/api/projects/default", alice));
    expect(view["session"]).toMatchObject({ owner: "alice", project_id: defaultProject["project"]["id"] });
    const stranger = await api(`/api/sessions/${aliceSession}`, bob);
    expect(stranger.status).toBe(404);
    expect(await json(stranger)).toMatchObject({ error: { code: "SESSION_NOT_FOUND" } });
  });

  it("serves the owner's files with a content type, and 404 for another user's", async () => {
    const list = await json(await api(`/api/sessions/${aliceSession}/files`, alice));
    expect(list["files"]).toEqual([expect.objectContaining({ path: "brief.md", size: 23, author: expect.objectContaining({ user: "alice", session_id: aliceSession }) })]);
    const file = await api(`/api/sessions/${aliceSession}/files/brief.md`, alice);
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    expect(await file.text()).toBe("# Brief\n\nAlice's idea.\n");
    for (const path of [`/api/sessions/${aliceSession}/files`, `/api/sessions/${aliceSession}/files/brief.md`]) {
      const response = await api(path, bob);
      expect(response.status).toBe(404);
    }
  });

  it("refuses file paths that leave the session folder, without leaking anything", async () => {
    for (const path of ["..%2F..%2F..%2Fetc%2Fpasswd", "%2Fetc%2Fpasswd", "manifest.json%00.md", "..%5C..%5Cetc%5Cpasswd"]) {
      const response = await api(`/api/sessions/${aliceSession}/files/${path}`, alice);
      expect(response.status, path).toBeGreaterThanOrEqual(400);
      const text = await response.text();
      expect(text).not.toContain("root:");
      expect(text).not.toContain(repoRoot);
    }
  });

  it("does not let another user continue, cancel or watch a session", async () => {
    const continued = await chat(bob, { agent_id: "idea-coach", message: "hi", session_id: aliceSession });
    expect(continued.status).toBe(404);
    expect((await api(`/api/sessions/${aliceSession}/cancel`, bob, { method: "POST" })).status).toBe(404);
    expect((await api(`/api/sessions/${aliceSession}/events`, bob)).status).toBe(404);
  });
});

describe("turns in progress", () => {
  it("cancels a running turn: the stream ends with CANCELLED and the session says cancelled", async () => {
    const streaming = chat(alice, { agent_id: "idea-coach", message: "stall for a while", detach: true }, "text/event-stream");
    const response = await streaming;
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const sessionId = /"session_id":"([^"]+)"/.exec(first)?.[1] as string;
    const cancelled = await json(await api(`/api/sessions/${sessionId}/cancel`, alice, { method: "POST" }));
    expect(cancelled).toEqual({ success: true, cancelled: true });
    let rest = first;
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) break;
      rest += new TextDecoder().decode(chunk.value);
    }
    expect(rest).toContain('"code":"CANCELLED"');
    const view = await json(await api(`/api/sessions/${sessionId}`, alice));
    expect(view["session"]["status"]).toBe("cancelled");
    const again = await json(await api(`/api/sessions/${sessionId}/cancel`, alice, { method: "POST" }));
    expect(again).toEqual({ success: true, cancelled: false });
  });

  it("shows the owner no files while a new session's first turn runs, and 404 to anyone else", async () => {
    const response = await chat(alice, { agent_id: "idea-coach", message: "stall before any file", detach: true }, "text/event-stream");
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const sessionId = /"session_id":"([^"]+)"/.exec(first)?.[1] as string;
    // no tool has written: the chat's scratch space is empty while its first turn runs
    expect(await json(await api(`/api/sessions/${sessionId}/files`, alice))).toEqual({ success: true, files: [], bytes: 0, unservable_names: 0 });
    const view = await json(await api(`/api/sessions/${sessionId}`, alice));
    expect(view).toMatchObject({ success: true, session: { id: sessionId, status: "running", owner: "alice" } });
    const missing = await api(`/api/sessions/${sessionId}/files/brief.md`, alice);
    expect(missing.status).toBe(404);
    expect(await json(missing)).toMatchObject({ error: { code: "FILE_NOT_FOUND" } });
    for (const path of [`/api/sessions/${sessionId}/files`, `/api/sessions/${sessionId}/files/brief.md`, "/api/sessions/no-such-session/files"]) {
      const stranger = await api(path, bob);
      expect(stranger.status, path).toBe(404);
      expect(await json(stranger)).toMatchObject({ error: { code: "SESSION_NOT_FOUND" } });
    }
    expect(await json(await api(`/api/sessions/${sessionId}/cancel`, alice, { method: "POST" }))).toEqual({ success: true, cancelled: true });
    await reader.cancel();
  });

  it("re-attaches a client that dropped mid-turn: every event from the start, then the live ones", async () => {
    const response = await chat(alice, { agent_id: "idea-coach", message: "slow answer please", detach: true }, "text/event-stream");
    const reader = response.body!.getReader();
    let seen = "";
    while (!seen.includes("event: delta")) seen += new TextDecoder().decode((await reader.read()).value);
    const sessionId = /"session_id":"([^"]+)"/.exec(seen)?.[1] as string;
    await reader.cancel();

    const replay = await readSse(await api(`/api/sessions/${sessionId}/events`, alice, { headers: { accept: "text/event-stream" } }));
    expect(replay[0]).toMatchObject({ event: "session", data: { seq: 0 } });
    expect(replay.map((event) => event.data["seq"])).toEqual(replay.map((_event, index) => index));
    expect(replay.at(-1)).toMatchObject({ event: "done", data: { response: "one two three four five six seven eight nine ten" } });
  });
  it("cancels a turn whose client disconnects before the end (a detached turn goes on: see re-attach above)", async () => {
    const response = await chat(alice, { agent_id: "idea-coach", message: "stall until I leave" }, "text/event-stream");
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const sessionId = /"session_id":"([^"]+)"/.exec(first)?.[1] as string;
    await reader.cancel();
    let status = "running";
    for (let attempt = 0; attempt < 50 && status === "running"; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = (await json(await api(`/api/sessions/${sessionId}`, alice)))["session"]["status"];
    }
    expect(status).toBe("cancelled");
  });
});

describe("WebSocket /ws", () => {
  const wsUrl = () => system.url.replace("http", "ws") + "/ws";
  const open = (headers: Record<string, string>) =>
    new Promise<{ socket: WebSocket } & SocketMessages>((resolve, reject) => {
      const socket = new WebSocket(wsUrl(), { headers });
      const messages = recordMessages(socket);
      socket.once("open", () => resolve({ socket, ...messages }));
      socket.once("unexpected-response", (_request, response) => reject(new Error(`HTTP ${response.statusCode}`)));
      socket.once("error", reject);
    });

  it("refuses an upgrade from a foreign Origin (cross-site WebSocket hijacking)", async () => {
    await expect(open({ origin: "https://evil.example", authorization: `Bearer ${alice}` })).rejects.toThrow("HTTP 403");
  });

  it("chats with the same events as SSE, authenticated by a first auth message", async () => {
    const { socket, received, next } = await open({ origin: system.url });
    socket.send(JSON.stringify({ type: "auth", token: alice }));
    socket.send(JSON.stringify({ type: "chat", agent_id: "idea-coach", message: "hello socket" }));
    const last = await next((message) => message["type"] === "done" || (message["type"] === "error" && !message["run_id"]));
    expect(received[0]).toEqual({ type: "ready" });
    expect(received.map((message) => message["type"])).toEqual(expect.arrayContaining(["session", "delta", "done"]));
    expect(last).toMatchObject({ type: "done", response: "echo: hello socket" });
    socket.close();
  });

  it("refuses chat before auth and rejects messages that are not the protocol", async () => {
    const { socket, next } = await open({ origin: system.url });
    socket.send("{not json");
    expect(await next(() => true)).toMatchObject({ type: "error", error: { code: "BAD_REQUEST" } });
    socket.close();
  });

  it("closes a socket whose message is larger than maxPayload with 1009", async () => {
    const { socket, closed } = await open({ origin: system.url, authorization: `Bearer ${alice}` });
    socket.send("x".repeat(200 * 1024));
    expect((await closed).code).toBe(1009);
  });

  it("cancels a running turn with a cancel message, and the chat's stream ends with CANCELLED", async () => {
    const { socket, received, next } = await open({ origin: system.url, authorization: `Bearer ${alice}` });
    socket.send(JSON.stringify({ type: "chat", agent_id: "idea-coach", message: "stall over the socket", detach: true }));
    const session = await next((message) => message["type"] === "session");
    socket.send(JSON.stringify({ type: "cancel", session_id: session["session_id"] }));
    const ended = await next((message) => message["type"] === "error" && Boolean(message["run_id"]));
    expect(received).toContainEqual({ type: "cancelled", session_id: session["session_id"], cancelled: true });
    expect(ended).toMatchObject({ type: "error", error: { code: "CANCELLED" } });
    socket.close();
  });

  it("lets a second client watch a session's turn as it happens", async () => {
    const first = await json(await chat(alice, { agent_id: "idea-coach", message: "warm up" }));
    const sessionId = first["session_id"];
    const watcher = await open({ origin: system.url, authorization: `Bearer ${alice}` });
    watcher.socket.send(JSON.stringify({ type: "watch", session_id: sessionId }));
    // the watch is live once the server holds its consumer on RUN_EVENTS (delivering what comes from then on)
    const admin = await connect({ servers: system.env["NATS_URL"], user: "admin", pass: testNatsCredentials("admin").NATS_PASSWORD });
    onTestFinished(() => admin.close());
    const manager = await admin.jetstreamManager();
    const eventsOfSession = subjects.sessionEvents(sessionId);
    await expect
      .poll(
        async () => {
          for await (const consumer of manager.consumers.list(jetStreamNames().runEvents)) {
            if (consumer.config.filter_subject === eventsOfSession || consumer.config.filter_subjects?.includes(eventsOfSession)) return true;
          }
          return false;
        },
        { timeout: 10_000, message: "the watch's consumer" },
      )
      .toBe(true);
    await chat(alice, { agent_id: "idea-coach", message: "watched turn", session_id: sessionId });
    expect(await watcher.next((message) => message["type"] === "done")).toMatchObject({ type: "done", session_id: sessionId, response: "echo: watched turn" });
    watcher.socket.close();
  });
});

describe("limits and metrics", () => {
  it("answers 429 with retry-after to an address after 10 wrong tokens a minute, on HTTP and the WebSocket; other addresses are unaffected", async () => {
    const { port } = new URL(system.url);
    // a second loopback address plays the guesser, so the other tests' address is not throttled
    const fromGuesser = (token: string, path = "/api/agents", headers: Record<string, string> = {}) =>
      new Promise<{ status: number; retryAfter: string | undefined }>((resolve, reject) => {
        const request = httpRequest({ host: "127.0.0.1", localAddress: "127.0.0.2", port, path, headers: { authorization: `Bearer ${token}`, ...headers } }, (response) => {
          response.resume();
          resolve({ status: response.statusCode ?? 0, retryAfter: response.headers["retry-after"] });
        });
        request.on("upgrade", (response, socket) => {
          socket.destroy();
          resolve({ status: response.statusCode ?? 101, retryAfter: undefined });
        });
        request.on("error", reject);
        request.end();
      });
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 30; attempt++) statuses.push((await fromGuesser(`wrong-token-${attempt}`)).status);
    expect(statuses.slice(0, 10).every((status) => status === 401)).toBe(true);
    expect(statuses.slice(10).every((status) => status === 429)).toBe(true);
    const refused = await fromGuesser(alice);
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    const upgrade = { connection: "Upgrade", upgrade: "websocket", "sec-websocket-version": "13", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==" };
    expect((await fromGuesser(alice, "/ws", upgrade)).status).toBe(429);
    expect((await api("/api/agents", alice)).status).toBe(200);
  });

  it("closes a WebSocket that sends more messages a second than allowed (1008)", async () => {
    const socket = new WebSocket(`${system.url.replace("http", "ws")}/ws`, { headers: { origin: system.url, authorization: `Bearer ${alice}` } });
    await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
    const closed = new Promise<number>((resolve) => socket.once("close", (code) => resolve(code)));
    for (let index = 0; index < 100; index++) socket.send(JSON.stringify({ type: "watch", session_id: "none" }));
    expect(await closed).toBe(1008);
  });

  it("answers 413 for a body over the limit and 400 for malformed or deeply nested JSON", async () => {
    const big = await api("/api/chat", alice, { method: "POST", body: JSON.stringify({ agent_id: "idea-coach", message: "x".repeat(20_000) }) });
    expect(big.status).toBe(413);
    expect(await json(big)).toMatchObject({ error: { code: "PAYLOAD_TOO_LARGE" } });
    const deep = await api("/api/chat", alice, { method: "POST", body: "[".repeat(4_000) + "]".repeat(4_000) });
    expect(deep.status).toBe(400);
  });

  it("exports Prometheus metrics for requests, tool calls and tokens", async () => {
    // its own turn with a tool call, so the counters it checks never depend on which tests ran before
    expect((await chat(bob, { agent_id: "idea-coach", message: "save the metrics brief" })).status).toBe(200);
    const text = await (await fetch(`${system.url}/metrics`)).text();
    expect(text).toContain("ao_http_requests_total");
    expect(text).toMatch(/ao_tool_calls_total\{tool="save_output",outcome="ok"\} [1-9]/);
    expect(text).toMatch(/ao_tokens_total\{kind="prompt"\} [1-9]/);
  });
});

describe("without an orchestrator", () => {
  it("answers a chat with 503 SERVICE_UNAVAILABLE from its count of orchestrators, not at the pickup timeout", async () => {
    const index = system.processes.findIndex((service) => service.name === "orchestrator");
    expect(await system.processes[index]?.stop("SIGTERM")).toBe(0);
    // the other tests need an orchestrator, whichever order they run in
    onTestFinished(async () => {
      const replacement = startServiceProcess("orchestrator", system.env);
      system.processes[index] = replacement;
      await replacement.waitForLine((line) => line["msg"] === "orchestrator ready", 30_000);
      while (((await (await fetch(`${system.url}/healthz`)).json()) as { status: string }).status !== "ok") await new Promise((resolve) => setTimeout(resolve, 100));
    });
    // this system's pickup limit (10 minutes) is far past the test's own timeout, so an answer at all is the
    // early orchestrator count's (the limit would give the same error, but only after it)
    const response = await chat(alice, { agent_id: "idea-coach", message: "anyone there?" });
    expect(response.status).toBe(503);
    expect(await json(response)).toMatchObject({ error: { code: "SERVICE_UNAVAILABLE", message: expect.stringContaining("No orchestrator") } });
  });
});
