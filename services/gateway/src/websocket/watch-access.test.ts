import { once } from "node:events";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { encodeJson } from "@agent-orchestrator/shared/runtime";
import { subjects, zeroUsage, type RunEventBody } from "@agent-orchestrator/shared/wire";
import { FakeOrchestrator } from "../testing/fake-orchestrator.js";
import { gatewayFixture, tokens, type FixtureUser } from "../testing/gateway-fixture.js";

const fixture = gatewayFixture();
const orchestrator = new FakeOrchestrator(fixture);
beforeAll(() => orchestrator.answer());

const sockets: WebSocket[] = [];
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.close();
});

type Message = Record<string, any>;

/** A signed-in socket, everything it received, and a wait for the first message that matches. */
async function openSocket(user: FixtureUser) {
  const socket = new WebSocket(`${fixture.url().replace("http", "ws")}/ws`, { headers: { authorization: `Bearer ${tokens[user]}` } });
  sockets.push(socket);
  const received: Message[] = [];
  const waiting: { match: (message: Message) => boolean; resolve: (message: Message) => void }[] = [];
  socket.on("message", (data) => {
    const message = JSON.parse(String(data)) as Message;
    received.push(message);
    for (const waiter of waiting.filter((entry) => entry.match(message))) {
      waiting.splice(waiting.indexOf(waiter), 1);
      waiter.resolve(message);
    }
  });
  await once(socket, "open");
  const next = (match: (message: Message) => boolean) =>
    new Promise<Message>((resolve) => {
      const seen = received.find(match);
      if (seen) resolve(seen);
      else waiting.push({ match, resolve });
    });
  const watch = (sessionId: string) => socket.send(JSON.stringify({ type: "watch", session_id: sessionId }));
  return { received, next, watch };
}

const doneOf = (runId: string) => (message: Message) => message["type"] === "done" && message["run_id"] === runId;
const errorOf = (sessionId: string) => (message: Message) => message["type"] === "error" && message["session_id"] === sessionId;

/** Publishes one whole turn of the chat, as the orchestrator would. */
function publishTurn(sessionId: string, runId: string): void {
  const events: RunEventBody[] = [
    { type: "session", agent_id: "a", attempt: 1 },
    { type: "delta", text: "secret plans" },
    { type: "done", response: "secret plans", iterations: 1, usage: zeroUsage(), usage_by_call: [], session_usage: zeroUsage() },
  ];
  events.forEach((event, seq) => fixture.connection().publish(fixture.prefix + subjects.runEvents(sessionId, runId), encodeJson({ ...event, session_id: sessionId, run_id: runId, seq })));
}

/**
 * A project of alice's with bob (viewer) and carol (editor), and a running chat of it that both alice and bob watch;
 * the running turn has reached both, so both watches are live.
 */
async function watchedChat(projectId: string) {
  orchestrator.addProject(projectId, "alice", { bob: "viewer", carol: "editor" });
  const chat = orchestrator.addChat(`${projectId}-chat`, projectId, "alice", "running");
  const owner = await openSocket("alice");
  const member = await openSocket("bob");
  owner.watch(chat.id);
  member.watch(chat.id);
  publishTurn(chat.id, chat.run_id as string);
  await Promise.all([owner.next(doneOf(chat.run_id as string)), member.next(doneOf(chat.run_id as string))]);
  return { chat, owner, member };
}

const eventsOfRun = (received: Message[], runId: string) => received.filter((message) => message["run_id"] === runId);

describe("a watch lasts only as long as its user may read the chat (docs/security.md case 267)", () => {
  it("ends at once, with an error naming the chat, when its user is removed from the project; later turns never reach them", async () => {
    const { chat, owner, member } = await watchedChat("removal");
    const removed = await fixture.api("alice", "/api/projects/removal/members/bob", { method: "DELETE" });
    expect(removed.status).toBe(200);
    expect(await member.next(errorOf(chat.id))).toEqual({ type: "error", session_id: chat.id, error: { code: "SESSION_NOT_FOUND", message: expect.stringContaining("This watch has ended") } });

    publishTurn(chat.id, "removal-run-2");
    await owner.next(doneOf("removal-run-2"));
    expect(eventsOfRun(member.received, "removal-run-2")).toEqual([]);
  });

  it("ends when the project is deleted", async () => {
    const { chat, member } = await watchedChat("deleted");
    orchestrator.chats.get(chat.id)!.status = "idle";
    expect((await fixture.api("alice", "/api/projects/deleted", { method: "DELETE" })).status).toBe(200);
    expect((await member.next(errorOf(chat.id)))["error"]).toMatchObject({ code: "SESSION_NOT_FOUND" });
  });

  it("is checked again before each new turn, so a removal whose notice was lost still ends it before the turn is seen", async () => {
    const { chat, owner, member } = await watchedChat("lost-notice");
    // taken out of the record without a notice, as when the publish is lost
    delete orchestrator.projects.get("lost-notice")!.members["bob"];
    publishTurn(chat.id, "lost-notice-run-2");
    await owner.next(doneOf("lost-notice-run-2"));
    expect((await member.next(errorOf(chat.id)))["error"]).toMatchObject({ code: "SESSION_NOT_FOUND" });
    expect(eventsOfRun(member.received, "lost-notice-run-2")).toEqual([]);
  });

  it("goes on through member changes that leave its user a reader, and through the next turns", async () => {
    const { chat, member } = await watchedChat("kept");
    expect((await fixture.api("alice", "/api/projects/kept/members/carol", { method: "DELETE" })).status).toBe(200);
    expect((await fixture.api("alice", "/api/projects/kept/members/bob", { method: "PUT", body: JSON.stringify({ role: "editor" }), headers: { "content-type": "application/json" } })).status).toBe(200);
    publishTurn(chat.id, "kept-run-2");
    expect(await member.next(doneOf("kept-run-2"))).toMatchObject({ session_id: chat.id, response: "secret plans" });
    expect(member.received.filter(errorOf(chat.id))).toEqual([]);
  });
});
