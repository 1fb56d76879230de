/**
 * The walking skeleton end to end (ARCHITECTURE.md "One chat turn"): the four services as four processes on a real NATS server,
 * the scripted model behind the real openai client, and plain HTTP in front.
 */
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { readSse } from "@agent-orchestrator/testing/sse";
import { lastMessage, type ChatRequestBody, type HttpModel, type ScriptedTurn } from "@agent-orchestrator/testing/http-model";
import { endsWithDateNote, withoutSystemNote } from "@agent-orchestrator/testing/system-note";
import { repoRoot, startSystem } from "@agent-orchestrator/testing/service-processes";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";

let system: TestSystem;
let model: HttpModel;

/** The model's behaviour, chosen by the first word of the user's latest message. */
function respond(request: ChatRequestBody): ScriptedTurn {
  const last = lastMessage(request);
  const userMessages = request.messages.filter((message) => message.role === "user");
  const said = withoutSystemNote(String(userMessages[userMessages.length - 1]?.content ?? ""));
  if (last?.role === "tool") {
    const result = JSON.parse(String(last.content)) as { success: boolean; content?: string; error?: { message: string } };
    return { text: result.success ? `The file says:\n${result.content ?? "(saved)"}` : `The tool said: ${result.error?.message}` };
  }
  if (said.startsWith("quote")) return { toolCalls: [{ name: "read_file", arguments: { file_path: "{bundle-root}/config.yaml" } }] };
  if (said.startsWith("save")) {
    return { toolCalls: [{ name: "save_output", arguments: { file_path: "{session-folder}/x.md", content: "# Saved by the model\n" } }] };
  }
  if (said.startsWith("xml")) {
    const page = '<html xmlns="http://www.w3.org/1999/xhtml"><body><form action="https://evil.example"><input name="token"/></form></body></html>';
    return { toolCalls: [{ name: "save_output", arguments: { file_path: "{session-folder}/page.xml", content: page } }] };
  }
  if (said.startsWith("escape")) return { toolCalls: [{ name: "read_file", arguments: { file_path: "{bundle-root}/../../etc/passwd" } }] };
  return { text: `Hello! You said: ${said}` };
}

beforeAll(async () => {
  system = await startTestSystem({ responder: respond });
  ({ model } = system);
}, 60_000);

afterAll(() => system?.stop());

const chat = (body: Record<string, unknown>, accept = "application/json") =>
  fetch(`${system.url}/api/chat`, { method: "POST", headers: { "content-type": "application/json", accept }, body: JSON.stringify(body) });

describe("the walking skeleton", () => {
  it("runs the four services as four processes that answer health checks", async () => {
    const health = (await (await fetch(`${system.url}/healthz`)).json()) as Record<string, unknown>;
    expect(health).toMatchObject({
      status: "ok",
      nats: { connected: true },
      services: { registry: 1, "tool-runner": 1, orchestrator: 1, gateway: 1 },
    });
    expect(new Set(system.processes.map((service) => service.child.pid)).size).toBe(4);
  });

  it("lists the sample agent", async () => {
    const body = (await (await fetch(`${system.url}/api/agents`)).json()) as { success: boolean; agents: Array<Record<string, unknown>> };
    expect(body.success).toBe(true);
    expect(body.agents).toContainEqual(expect.objectContaining({ id: "idea-coach", name: "Nova", title: "Idea Coach", bundleName: "idea-studio" }));
  });

  it("answers a chat whose model reads the config first, quoting the file, in 2 iterations", async () => {
    const requestsBefore = model.requests.length;
    const response = await chat({ agent_id: "idea-coach", message: "quote the config" });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { success: boolean; session_id: string; response: string; iterations: number; usage: { total_tokens: number } };
    expect(body).toMatchObject({ success: true, iterations: 2 });
    expect(body.response).toContain("project_name: Idea Studio");
    expect(body.usage.total_tokens).toBeGreaterThan(0);
    // the model really got the file through the tool, and its system prompt carried the config loaded at start
    const toolMessage = model.requests.slice(requestsBefore).flatMap((request) => request.body.messages).find((message) => message.role === "tool");
    expect(String(toolMessage?.content)).toContain('"path":"{bundle-root}/config.yaml"');
    const system = String(model.requests.at(-1)?.body.messages[0]?.content);
    expect(system).toContain("You are Nova, Idea Coach.");
    expect(system).toContain("Remember the user's name is Friend");
  });

  it("streams the same chat as SSE: session, tool call and result, deltas, then done", async () => {
    const response = await chat({ agent_id: "idea-coach", message: "quote the config again" }, "text/event-stream");
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const events = await readSse(response);
    const names = events.map((event) => event.event);
    expect(names[0]).toBe("session");
    expect(names).toContain("tool_call");
    expect(events.find((event) => event.event === "tool_result")?.data).toMatchObject({ name: "read_file", success: true, path: "{bundle-root}/config.yaml" });
    expect(names.filter((name) => name === "delta").length).toBeGreaterThan(1);
    expect(names.at(-1)).toBe("done");
    expect(events.at(-1)?.data).toMatchObject({ iterations: 2 });
    const text = events.filter((event) => event.event === "delta").map((event) => event.data["text"]).join("");
    expect(text).toContain("project_name: Idea Studio");
    expect(events.map((event) => event.data["seq"])).toEqual(events.map((_event, index) => index));
  });

  it("saves output into the chat's {session-folder} and lists it with the chat", async () => {
    const body = (await (await chat({ agent_id: "idea-coach", message: "save a note" })).json()) as { session_id: string; response: string };
    // the files are listed by the time the answer arrives (docs/projects.md: the chat's scratch space is in the store)
    const listed = (await (await fetch(`${system.url}/api/sessions/${body.session_id}/files`)).json()) as Record<string, unknown>;
    expect(listed).toMatchObject({ success: true, bytes: 21, files: [expect.objectContaining({ path: "x.md", size: 21, revision: 1, author: expect.objectContaining({ session_id: body.session_id, agent_id: "idea-coach" }) })] });
    const saved = await fetch(`${system.url}/api/sessions/${body.session_id}/files/x.md`);
    expect(saved.status).toBe(200);
    expect(await saved.text()).toBe("# Saved by the model\n");
    // the turn's outcome may follow the answer (docs/design.md "Projects and sessions")
    const readSession = async () => ((await (await fetch(`${system.url}/api/sessions/${body.session_id}`)).json()) as { session: Record<string, unknown> }).session;
    await expect.poll(readSession, { timeout: 5_000 }).toMatchObject({ id: body.session_id, agent_id: "idea-coach", status: "completed" });
  });

  it("gives the model 'Access denied' and no content for a path that escapes the bundle", async () => {
    const body = (await (await chat({ agent_id: "idea-coach", message: "escape please" })).json()) as { response: string };
    expect(body.response).toContain("Access denied");
    const toolMessages = model.requests.flatMap((request) => request.body.messages).filter((message) => message.role === "tool");
    const denied = toolMessages.find((message) => String(message.content).includes("Access denied"));
    expect(denied).toBeDefined();
    expect(String(denied?.content)).not.toContain("root:");
    expect(String(denied?.content)).not.toContain(repoRoot);
  });

  it("continues a session: the next turn sees the earlier conversation", async () => {
    const first = (await (await chat({ agent_id: "idea-coach", message: "hello one" })).json()) as { session_id: string };
    const second = (await (await chat({ agent_id: "idea-coach", message: "hello two", session_id: first.session_id })).json()) as {
      session_id: string;
      response: string;
    };
    expect(second.session_id).toBe(first.session_id);
    // after the system prompt; the system's note of the day ends the first message
    const contents = model.requests.at(-1)?.body.messages.slice(1).map((message) => message.content);
    expect(contents).toEqual([expect.stringMatching(endsWithDateNote("hello one")), "Hello! You said: hello one", "hello two"]);
  });

  it("answers errors in the one error shape: unknown agent, unknown session, bad body, unknown route", async () => {
    const unknownAgent = await chat({ agent_id: "nobody", message: "hi" });
    expect(unknownAgent.status).toBe(404);
    expect(await unknownAgent.json()).toMatchObject({ success: false, error: { code: "AGENT_NOT_FOUND" } });

    const unknownSession = await chat({ agent_id: "idea-coach", message: "hi", session_id: "no-such-session" });
    expect(unknownSession.status).toBe(404);
    expect(await unknownSession.json()).toMatchObject({ success: false, error: { code: "SESSION_NOT_FOUND" } });

    const badBody = await chat({ agent_id: "idea-coach" });
    expect(badBody.status).toBe(400);
    expect(await badBody.json()).toMatchObject({ success: false, error: { code: "VALIDATION_ERROR" } });

    const malformed = await fetch(`${system.url}/api/chat`, { method: "POST", headers: { "content-type": "application/json" }, body: "{nope" });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ success: false, error: { code: "BAD_REQUEST" } });

    const route = await fetch(`${system.url}/api/nothing-here`);
    expect(route.status).toBe(404);
    expect(await route.json()).toMatchObject({ success: false, error: { code: "NOT_FOUND" } });
  });

  it("serves a model-written .xml file as plain text under a sandbox CSP, never as a live XHTML page", async () => {
    const answer = (await (await chat({ agent_id: "idea-coach", message: "xml please" })).json()) as { session_id: string };
    const response = await fetch(`${system.url}/api/sessions/${answer.session_id}/files/page.xml`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("content-security-policy")).toContain("sandbox");
    expect(response.headers.get("content-security-policy")).toContain("form-action 'none'");
    expect((await fetch(`${system.url}/`)).headers.get("content-security-policy")).toContain("form-action 'none'");
  });

  it("refuses a foreign Host without AUTH_TOKENS on every route and on the WebSocket upgrade (DNS rebinding)", async () => {
    const { port } = new URL(system.url);
    const status = (path: string, host: string, headers: Record<string, string> = {}) =>
      new Promise<number>((resolve, reject) => {
        const request = httpRequest({ host: "127.0.0.1", port, path, headers: { host, ...headers } }, (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        });
        request.on("upgrade", (response, socket) => {
          socket.destroy();
          resolve(response.statusCode ?? 101);
        });
        request.on("error", reject);
        request.end();
      });
    const upgrade = { connection: "Upgrade", upgrade: "websocket", "sec-websocket-version": "13", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==" };
    for (const path of ["/healthz", "/api/agents", "/", "/v1/models", "/api/sessions"]) expect(await status(path, `evil.example:${port}`)).toBe(403);
    expect(await status("/ws", `evil.example:${port}`, { ...upgrade, origin: `http://evil.example:${port}` })).toBe(403);
    expect(await status("/api/agents", `localhost:${port}`)).toBe(200);
    expect(await status("/ws", `127.0.0.1:${port}`, upgrade)).toBe(101);
  });

  it("stops every service cleanly on SIGTERM", async () => {
    // a set of its own on the same NATS server, after a chat through it: the other tests keep theirs, whichever order they run in
    const own = await startSystem(system.env);
    onTestFinished(() => own.stop());
    const response = await fetch(`${own.url}/api/chat`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ agent_id: "idea-coach", message: "hello" }) });
    expect(response.status).toBe(200);
    const codes = await Promise.all(own.processes.map((service) => service.stop("SIGTERM")));
    expect(codes).toEqual([0, 0, 0, 0]);
  });
});
