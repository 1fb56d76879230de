/**
 * A WebSocket watch through the real services lasts only while its user may read the chat (docs/projects.md "What a
 * project is", docs/security.md case 267): bob, a viewer of alice's project, watches her chat; once she removes him
 * his watch ends with an error naming the chat, and her next turn never reaches him. Real processes, a private
 * nats-server, the scripted model.
 */
import { once } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import type { ChatRequestBody, ScriptedTurn } from "@agent-orchestrator/testing/http-model";
import { recordMessages } from "@agent-orchestrator/testing/socket-messages";
import { withoutSystemNote } from "@agent-orchestrator/testing/system-note";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";

const alice = "alice-token-1111";
const bob = "bob-token-22222";
let system: TestSystem;
/** The model holds its answer to "hold" until the test lets it go. */
let reachedHold: () => void = () => undefined;
let releaseHold: () => void = () => undefined;

async function respond(request: ChatRequestBody): Promise<ScriptedTurn> {
  const said = withoutSystemNote(String(request.messages.at(-1)?.content ?? ""));
  if (said === "hold") {
    await new Promise<void>((resolve) => {
      releaseHold = resolve;
      reachedHold();
    });
  }
  return { text: `the plan: ${said}` };
}

beforeAll(async () => {
  system = await startTestSystem({ responder: respond, env: { AUTH_TOKENS: `alice:${alice},bob:${bob}`, HOST: "127.0.0.1" } });
}, 60_000);

afterAll(() => system?.stop());

async function call(token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, any> }> {
  const response = await fetch(`${system.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

/** A socket signed in as `token`, what it received, and a wait for the first message that matches. */
async function openSocket(token: string) {
  const socket = new WebSocket(`${system.url.replace("http", "ws")}/ws`, { headers: { authorization: `Bearer ${token}` } });
  const messages = recordMessages(socket);
  await once(socket, "open");
  return { socket, ...messages };
}

describe("a watch of a chat (docs/security.md case 267)", () => {
  it("ends for a member removed from the chat's project, and their next turns never reach them", async () => {
    const project = (await call(alice, "POST", "/api/projects", { name: "Secret plans" })).body["project"].id as string;
    expect((await call(alice, "PUT", `/api/projects/${project}/members/bob`, { role: "viewer" })).status).toBe(200);
    const first = await call(alice, "POST", "/api/chat", { agent_id: "idea-coach", project_id: project, message: "the outline" });
    const sessionId = first.body["session_id"] as string;

    // a held turn: bob's watch starts at its start, so it sees all of it; the turn goes on once the watch shows its
    // first event (released before, the turn could end before the gateway looked the chat up, and a watch of a chat
    // that is not running sees only what comes after it)
    const held = new Promise<void>((resolve) => (reachedHold = resolve));
    const running = call(alice, "POST", "/api/chat", { agent_id: "idea-coach", project_id: project, session_id: sessionId, message: "hold" });
    await held;
    const watcher = await openSocket(bob);
    watcher.socket.send(JSON.stringify({ type: "watch", session_id: sessionId }));
    expect(await watcher.next((message) => message["type"] === "session")).toMatchObject({ session_id: sessionId, project_id: project });
    releaseHold();
    expect((await running).body["response"]).toBe("the plan: hold");
    expect(await watcher.next((message) => message["type"] === "done")).toMatchObject({ session_id: sessionId, response: "the plan: hold" });

    expect((await call(alice, "DELETE", `/api/projects/${project}/members/bob`)).status).toBe(200);
    expect(await watcher.next((message) => message["type"] === "error")).toEqual({
      type: "error",
      session_id: sessionId,
      error: { code: "SESSION_NOT_FOUND", message: expect.stringContaining("This watch has ended") },
    });

    // the watch ended before this turn began (its consumer is closed before the error is sent): nothing of it can come
    const later = await call(alice, "POST", "/api/chat", { agent_id: "idea-coach", project_id: project, session_id: sessionId, message: "the launch date" });
    expect(later.body["response"]).toBe("the plan: the launch date");
    expect(watcher.received.filter((message) => JSON.stringify(message).includes("launch"))).toEqual([]);
    expect(watcher.received.filter((message) => message["type"] === "done")).toHaveLength(1);
    watcher.socket.close();
  });
});
