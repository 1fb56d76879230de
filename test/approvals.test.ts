/**
 * Approvals end to end (docs/approvals.md; issue 39 "How it is checked"), on the four services as processes: a turn
 * of alice's pauses at a save_output the project set to ask; the orchestrator and the tool-runner are SIGKILLed and
 * replaced; bob, another member, approves from his own WebSocket; the call runs on the new tool-runner and the turn
 * finishes, and a client re-attaching reads the resumed run whole. Then an edited approval, a rejection, the refusals
 * (RELIABILITY cases 95-97), an expiry, the doors that cannot wait, and 100 paused turns that hold no slot.
 */
import { once } from "node:events";
import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { decodeJson, encodeJson } from "@agent-orchestrator/shared/runtime";
import { ApprovalRecord, jetStreamNames } from "@agent-orchestrator/shared/wire";
import { testNatsPasswords } from "@agent-orchestrator/testing/nats-harness";
import { startServiceProcess, type ServiceProcess } from "@agent-orchestrator/testing/service-processes";
import { recordMessages } from "@agent-orchestrator/testing/socket-messages";
import { readSse } from "@agent-orchestrator/testing/sse";
import { saveDraftResponder } from "@agent-orchestrator/testing/save-draft-responder";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";

const tokens = { alice: "alice-token-1111", bob: "bob-token-22222", vic: "vic-token-333333", mallory: "mallory-token-44" } as const;
type Member = keyof typeof tokens;

let system: TestSystem;
let admin: NatsConnection;
const replaced: ServiceProcess[] = [];
let project = "";

async function call(member: Member, method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, any> }> {
  const response = await fetch(`${system.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${tokens[member]}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

/** alice asks to save `path`: the turn pauses, answered 202 with the call that waits. */
async function pausedChat(path = "{project-root}/docs/plan.md"): Promise<{ sessionId: string; approvalId: string; body: Record<string, any> }> {
  const reply = await call("alice", "POST", "/api/chat", { agent_id: "idea-coach", project_id: project, message: `save ${path}` });
  expect(reply, JSON.stringify(reply.body)).toMatchObject({ status: 202, body: { success: true, status: "awaiting_approval" } });
  return { sessionId: reply.body["session_id"], approvalId: reply.body["approvals"][0].approval_id, body: reply.body };
}

async function openSocket(member: Member) {
  const socket = new WebSocket(`${system.url.replace("http", "ws")}/ws`, { headers: { authorization: `Bearer ${tokens[member]}` } });
  const messages = recordMessages(socket);
  await once(socket, "open");
  return { socket, messages, send: (message: object) => socket.send(JSON.stringify(message)) };
}

/** A project file's latest content, or its status when there is none. */
const fileText = async (path: string) => {
  const response = await fetch(`${system.url}/api/projects/${project}/files/${path}`, { headers: { authorization: `Bearer ${tokens.alice}` } });
  return response.status === 200 ? ((await response.json()) as { content: string }).content : `(${response.status})`;
};
const sessionOf = async (sessionId: string) => (await call("alice", "GET", `/api/sessions/${sessionId}`)).body["session"];

beforeAll(async () => {
  system = await startTestSystem({
    responder: saveDraftResponder,
    env: {
      AUTH_TOKENS: Object.entries(tokens).map(([user, token]) => `${user}:${token}`).join(","),
      APPROVALS_SWEEP_MS: "300",
      RUN_CONCURRENCY: "4",
      USER_MAX_CONCURRENT_TURNS: "2",
    },
  });
  admin = await connect({ servers: system.env["NATS_URL"], user: "admin", pass: testNatsPasswords["admin"] });
  const created = await call("alice", "POST", "/api/projects", { name: "Careful team" });
  project = created.body["project"].id;
  for (const [member, role] of [["bob", "editor"], ["vic", "viewer"]] as const) {
    expect((await call("alice", "PUT", `/api/projects/${project}/members/${member}`, { role })).status).toBe(200);
  }
  const settings = await call("alice", "PUT", `/api/projects/${project}/settings`, { approvals: { tools: { save_output: "ask", run_command: "ask" }, deciders: "editors" } });
  expect(settings, JSON.stringify(settings.body)).toMatchObject({ status: 200, body: { settings: { approvals: { deciders: "editors" } } } });
}, 120_000);

afterAll(async () => {
  await admin?.drain();
  await Promise.all(replaced.map((service) => service.stop()));
  await system?.stop();
});

describe("a paused turn survives its orchestrator and tool-runner", () => {
  it("case 97: after both are SIGKILLed, bob approves from his WebSocket, the call runs once on the new tool-runner and the turn finishes", async () => {
    const paused = await pausedChat();
    expect(paused.body).toMatchObject({ response: "Saving the draft.", approvals: [{ tool: "save_output", arguments: { file_path: "{project-root}/docs/plan.md", content: "the draft" } }] });
    expect((await sessionOf(paused.sessionId)).status).toBe("awaiting_approval");

    for (const name of ["orchestrator", "tool-runner"] as const) {
      const fresh = startServiceProcess(name, system.env);
      replaced.push(fresh);
      await fresh.waitForLine((line) => line["msg"] === (name === "orchestrator" ? "orchestrator ready" : "tool-runner serving"));
      await (system.processes.find((service) => service.name === name) as ServiceProcess).stop("SIGKILL");
    }

    const bob = await openSocket("bob");
    bob.send({ type: "watch", session_id: paused.sessionId });
    bob.send({ type: "approve", session_id: paused.sessionId, approval_id: paused.approvalId, decision: "approve" });
    expect(await bob.messages.next((message) => message["type"] === "approval_decided" && message["run_id"] === undefined)).toEqual({
      type: "approval_decided",
      session_id: paused.sessionId,
      approval_id: paused.approvalId,
      decision: "approve",
      by: "bob",
    });
    const done = await bob.messages.next((message) => message["type"] === "done" || message["type"] === "error");
    expect(done).toMatchObject({ type: "done", response: expect.stringContaining("The tool said") });
    bob.socket.close();

    expect(await fileText("docs/plan.md")).toBe("the draft");
    expect(await sessionOf(paused.sessionId)).toMatchObject({ status: "completed", turns: 1 });
    // a client re-attaching reads the resumed run from its first event to its last
    const replay = await fetch(`${system.url}/api/sessions/${paused.sessionId}/events`, { headers: { authorization: `Bearer ${tokens.vic}` } });
    const events = await readSse(replay);
    const kinds = events.map((event) => event.event).filter((kind, index, all) => kind !== "delta" || all[index - 1] !== "delta");
    expect(kinds).toEqual(["session", "approval_decided", "tool_call", "tool_result", "delta", "done"]);
    // the decision again, as another member: refused, naming who decided, and the file was written once
    expect(await call("alice", "POST", `/api/sessions/${paused.sessionId}/approvals/${paused.approvalId}`, { decision: "approve" })).toMatchObject({
      status: 409,
      body: { error: { code: "APPROVAL_DECIDED", message: expect.stringContaining("bob") } },
    });
    const revisions = await call("alice", "GET", `/api/projects/${project}/files/docs/plan.md?revisions`);
    expect(revisions.body["revisions"]).toHaveLength(1);
  }, 180_000);
});

describe("deciding", () => {
  it("case 96: an edited approval runs exactly the edited call, and the audit log holds both argument sets", async () => {
    const paused = await pausedChat("{project-root}/docs/edited.md");
    const edited = { file_path: "{project-root}/docs/final.md", content: "the member's text" };
    const decided = await call("bob", "POST", `/api/sessions/${paused.sessionId}/approvals/${paused.approvalId}`, { decision: "approve", arguments: edited });
    expect(decided).toMatchObject({ status: 200, body: { approval: { status: "approved", decided: { by: "bob", arguments_edited: true } } } });
    await expect.poll(async () => (await sessionOf(paused.sessionId)).status, { timeout: 30_000 }).toBe("completed");
    expect(await fileText("docs/final.md")).toBe("the member's text");
    expect(await fileText("docs/edited.md")).toBe("(404)");
    const audit = await call("alice", "GET", `/api/projects/${project}/audit`);
    const record = (audit.body["records"] as Array<Record<string, any>>).find((entry) => entry["action"] === "approval_decided" && entry["call"]?.approval_id === paused.approvalId);
    expect(record).toMatchObject({ actor: "bob", outcome: "ok", call: { arguments: { file_path: "{project-root}/docs/edited.md" }, edited_arguments: edited } });
  }, 60_000);

  it("a rejection reaches the model as a tool error carrying the member's message", async () => {
    const paused = await pausedChat("{project-root}/docs/rejected.md");
    expect((await call("alice", "POST", `/api/sessions/${paused.sessionId}/approvals/${paused.approvalId}`, { decision: "reject", message: "Not there, please" })).status).toBe(200);
    await expect.poll(async () => (await sessionOf(paused.sessionId)).status, { timeout: 30_000 }).toBe("completed");
    const lastTool = system.model.requests.at(-1)?.body.messages.findLast((message) => message.role === "tool");
    expect(JSON.parse(String(lastTool?.content))).toMatchObject({ success: false, error: { code: "TOOL_CALL_REJECTED", message: expect.stringContaining("Not there, please") } });
    expect(await fileText("docs/rejected.md")).toBe("(404)");
  }, 60_000);

  it("case 95: a viewer's decision is 403, a non-member's 404, another chat's approval id 404, and the call stays pending", async () => {
    const paused = await pausedChat("{project-root}/docs/pending.md");
    const other = await call("alice", "POST", "/api/chat", { agent_id: "idea-coach", project_id: project, message: "hello" });
    const path = `/api/sessions/${paused.sessionId}/approvals/${paused.approvalId}`;
    expect(await call("vic", "POST", path, { decision: "approve" })).toMatchObject({ status: 403, body: { error: { code: "PROJECT_FORBIDDEN" } } });
    expect(await call("mallory", "POST", path, { decision: "approve" })).toMatchObject({ status: 404 });
    expect(await call("alice", "POST", `/api/sessions/${other.body["session_id"]}/approvals/${paused.approvalId}`, { decision: "approve" })).toMatchObject({ status: 404, body: { error: { code: "APPROVAL_NOT_FOUND" } } });
    expect(await call("vic", "GET", `/api/sessions/${paused.sessionId}/approvals`)).toMatchObject({ status: 200, body: { approvals: [{ approval_id: paused.approvalId, status: "pending", may_decide: false }] } });
    expect((await call("mallory", "GET", `/api/sessions/${paused.sessionId}/approvals`)).status).toBe(404);
    const listed = await call("bob", "GET", "/api/approvals");
    expect(listed.body["approvals"].map((approval: { approval_id: string }) => approval.approval_id)).toContain(paused.approvalId);
    expect((await call("vic", "GET", "/api/approvals")).body["approvals"]).toEqual([]);
    // cancelling the chat rejects it
    expect(await call("alice", "POST", `/api/sessions/${paused.sessionId}/cancel`)).toMatchObject({ status: 200, body: { cancelled: true } });
    await expect.poll(async () => (await sessionOf(paused.sessionId)).status, { timeout: 30_000 }).toBe("cancelled");
  }, 60_000);

  it("an expired call ends the turn with APPROVAL_EXPIRED, keeping what it wrote, and the chat goes on", async () => {
    const paused = await pausedChat("{project-root}/docs/late.md");
    // a day's wait, as the sweep sees it: the call's expiry moved into the past
    const kv = await admin.jetstream().views.kv(jetStreamNames().approvalsBucket);
    const key = `approval.${paused.sessionId}.${paused.approvalId}`;
    const entry = await kv.get(key);
    const record = decodeJson(entry?.value ?? new Uint8Array(), ApprovalRecord);
    await kv.update(key, encodeJson({ ...record, expires_at: new Date(Date.now() - 1_000).toISOString() }), entry?.revision ?? 0);
    await expect.poll(async () => (await sessionOf(paused.sessionId)).status, { timeout: 30_000 }).toBe("failed");
    const events = await readSse(await fetch(`${system.url}/api/sessions/${paused.sessionId}/events`, { headers: { authorization: `Bearer ${tokens.alice}` } }));
    expect(events.at(-1)).toMatchObject({ event: "error", data: { error: { code: "APPROVAL_EXPIRED" } } });
    const next = await call("alice", "POST", "/api/chat", { agent_id: "idea-coach", session_id: paused.sessionId, message: "what now?" });
    expect(next).toMatchObject({ status: 200, body: { response: "Noted: what now?" } });
    expect((await sessionOf(paused.sessionId)).messages.map((message: { role: string }) => message.role)).toEqual(["user", "assistant", "user", "assistant"]);
  }, 60_000);
});

describe("the doors that cannot wait", () => {
  it("an SSE stream ends with the turn paused", async () => {
    const response = await fetch(`${system.url}/api/chat`, {
      method: "POST",
      headers: { authorization: `Bearer ${tokens.alice}`, "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ agent_id: "idea-coach", project_id: project, message: "save {project-root}/docs/streamed.md" }),
    });
    const events = await readSse(response);
    expect(events.at(-1)).toMatchObject({ event: "approval_required", data: { tool: "save_output", reason: expect.stringContaining("ask") } });
  }, 60_000);

  it("/v1 refuses a call that would wait, and the answer says so", async () => {
    const response = await fetch(`${system.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${tokens.alice}`, "content-type": "application/json", "x-project-id": project },
      body: JSON.stringify({ model: "idea-coach", messages: [{ role: "user", content: "save {project-root}/docs/v1.md" }] }),
    });
    const body = (await response.json()) as { choices: Array<{ message: { content: string } }> };
    expect(response.status).toBe(200);
    expect(body.choices[0]?.message.content).toMatch(/TOOL_CALL_DENIED.*cannot wait for a member's decision/s);
    expect(await fileText("docs/v1.md")).toBe("(404)");
  }, 60_000);
});

describe("100 paused turns", () => {
  it("hold no orchestrator or user slot: every one pauses, and a new turn still runs", async () => {
    // RUN_CONCURRENCY is 4 and USER_MAX_CONCURRENT_TURNS 2, two at a time: a paused turn that kept a slot would stop the next ones
    const paused: string[] = [];
    for (let pair = 0; pair < 50; pair++) {
      const replies = await Promise.all([0, 1].map((index) => pausedChat(`{project-root}/docs/many-${pair}-${index}.md`)));
      paused.push(...replies.map((reply) => reply.approvalId));
    }
    expect(new Set(paused).size).toBe(100);
    expect(await call("alice", "POST", "/api/chat", { agent_id: "idea-coach", project_id: project, message: "still here?" })).toMatchObject({ status: 200, body: { response: "Noted: still here?" } });
    const listed = await call("bob", "GET", "/api/approvals");
    expect(listed.body["approvals"]).toHaveLength(100);
  }, 300_000);
});
