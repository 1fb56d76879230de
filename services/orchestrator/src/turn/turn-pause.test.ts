/**
 * A turn paused at a tool call that waits for a member's decision, and its resume, through the real orchestrator
 * over NATS with the scripted model (docs/approvals.md): what the chat keeps, what each run's events say, and that
 * the wait holds no slot.
 */
import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { decodeJson, encodeJson, requestJson } from "@agent-orchestrator/shared/runtime";
import {
  ApprovalDecideReply,
  ApprovalRecord,
  isFinalEvent,
  jetStreamNames,
  ProjectReply,
  ProjectSettingsReply,
  RunEvent,
  runResumeSubject,
  SessionGetReply,
  subjects,
} from "@agent-orchestrator/shared/wire";
import type { z } from "zod";
import { startHttpModel, type ChatRequestBody, type HttpModel } from "@agent-orchestrator/testing/http-model";
import { withoutSystemNote } from "@agent-orchestrator/testing/system-note";
import type { Orchestrator } from "../orchestrator-service.js";
import { runTestTurn, startFakeServices, startTestOrchestrator, type FakeToolRunner } from "../testing/orchestrator-fixture.js";

const prefix = "pause1.";
let connection: NatsConnection;
let model: HttpModel;
let runner: FakeToolRunner;
let orchestrator: Orchestrator;
let projectId = "";

const lastMessage = (request: ChatRequestBody) => request.messages.at(-1);
/** "save <path>" makes the model save there; after a tool result it says what it read of it */
const respond = (request: ChatRequestBody) => {
  const last = lastMessage(request);
  if (last?.role === "tool") return { text: `Result: ${String(last.content)}` };
  const said = withoutSystemNote(String(last?.content ?? ""));
  const path = /^save (\S+)$/.exec(said)?.[1];
  if (path) return { text: "Saving it.", toolCalls: [{ name: "save_output", arguments: { file_path: path, content: "draft" } }] };
  return { text: `Noted: ${said}` };
};

/** The events' types, a run of deltas as one (the scripted model streams its text in pieces). */
const kinds = (events: readonly RunEvent[]) => events.map((event) => event.type).filter((type, index, all) => type !== "delta" || all[index - 1] !== "delta");

const ask = <S extends z.ZodType>(subject: string, body: Record<string, unknown>, schema: S): Promise<z.infer<S>> =>
  requestJson(connection, prefix + subject, body, schema, { timeoutMs: 10_000 });

/** The events of one run until its final event. */
async function runEvents(sessionId: string, runId: string, start: () => Promise<unknown>): Promise<RunEvent[]> {
  const subscription = connection.subscribe(prefix + subjects.runEvents(sessionId, runId));
  const timer = setTimeout(() => subscription.unsubscribe(), 20_000);
  await start();
  const events: RunEvent[] = [];
  for await (const message of subscription) {
    const event = decodeJson(message.data, RunEvent);
    events.push(event);
    if (isFinalEvent(event)) break;
  }
  clearTimeout(timer);
  subscription.unsubscribe();
  return events;
}

/** A turn of ada's that pauses at its save_output call: its events, and the call that waits. */
async function pausedTurn(message: string) {
  const turn = await runTestTurn(connection, prefix, message, { owner: "ada", projectId, timeoutMs: 20_000 });
  const final = turn.final;
  if (final?.type !== "approval_required") throw new Error(`expected a pause, got ${JSON.stringify(final)}`);
  return { ...turn, approval: final };
}

const decide = (user: string, sessionId: string, approvalId: string, decision: Record<string, unknown>) =>
  ask(subjects.approvalDecide, { user, session_id: sessionId, approval_id: approvalId, ...decision }, ApprovalDecideReply);
const session = async (sessionId: string) => {
  const reply = await ask(subjects.sessionGet, { user: "ada", session_id: sessionId }, SessionGetReply);
  if (!reply.success) throw new Error(reply.error.message);
  return reply.session;
};

beforeAll(async () => {
  connection = await connect({ servers: inject("natsUrl") });
  model = await startHttpModel({ responder: respond });
  runner = startFakeServices(connection, prefix, { toolRunner: true });
  runner.files["{project-root}/docs/a.md"] = "";
  runner.files["{project-root}/docs/b.md"] = "";
  orchestrator = await startTestOrchestrator(connection, prefix, {
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: "k",
    LLM_MODEL: "scripted",
    APPROVALS_SWEEP_MS: "200",
    USER_MAX_CONCURRENT_TURNS: "1",
  });
  const created = await ask(subjects.projectRequest("create"), { user: "ada", name: "Careful" }, ProjectReply);
  if (!created.success) throw new Error(created.error.message);
  projectId = created.project.id;
  const put = await ask(subjects.projectRequest("settings_put"), { user: "ada", project_id: projectId, settings: { approvals: { tools: { save_output: "ask" } } } }, ProjectSettingsReply);
  if (!put.success) throw new Error(put.error.message);
});

afterAll(async () => {
  await orchestrator.stop();
  await model.close();
  await connection.drain();
});

describe("a turn paused for a decision", () => {
  it("ends its run with approval_required, keeps what it did, holds no slot, and refuses a new message meanwhile", async () => {
    const first = await pausedTurn("save {project-root}/docs/a.md");
    expect(first.approval).toMatchObject({ tool: "save_output", arguments: { file_path: "{project-root}/docs/a.md", content: "draft" }, reason: "save_output is set to ask in this project" });
    expect(kinds(first.events)).toEqual(["session", "delta", "approval_required"]);
    expect(runner.calls.filter((call) => call.subject.endsWith("save_output"))).toEqual([]);
    expect(await session(first.sessionId)).toMatchObject({ status: "awaiting_approval", turns: 1 });
    // USER_MAX_CONCURRENT_TURNS is 1: a second chat runs, so the paused one gave its slot back
    const second = await pausedTurn("save {project-root}/docs/b.md");
    expect(second.approval.tool).toBe("save_output");
    const refused = await runTestTurn(connection, prefix, "hello?", { owner: "ada", sessionId: first.sessionId });
    expect(refused.final).toMatchObject({ type: "error", error: { code: "SESSION_BUSY", message: expect.stringContaining("waits for a decision") } });
  });

  it("resumes on approval with the member's edited arguments: the call runs once, the model is told, the turn finishes", async () => {
    const paused = await pausedTurn("save {project-root}/docs/a.md");
    const edited = { file_path: "{project-root}/docs/b.md", content: "final" };
    const events = await runEvents(paused.sessionId, paused.approval.approval_id, () => decide("ada", paused.sessionId, paused.approval.approval_id, { decision: "approve", arguments: edited }));
    expect(kinds(events)).toEqual(["session", "approval_decided", "tool_call", "tool_result", "delta", "done"]);
    expect(events[1]).toMatchObject({ type: "approval_decided", decision: "approve", by: "ada", arguments_edited: true });
    expect(events[2]).toMatchObject({ type: "tool_call", name: "save_output", arguments: edited });
    const saves = runner.calls.filter((call) => call.subject.endsWith("save_output") && call.body.call_id.startsWith(paused.approval.approval_id));
    expect(saves.map((call) => call.body.arguments)).toEqual([edited]);
    const toolMessage = model.requests.at(-1)?.body.messages.find((message) => message.role === "tool");
    expect(JSON.parse(String(toolMessage?.content))).toMatchObject({ success: true, approval: expect.stringContaining("changed this call's arguments"), arguments_run: edited });
    expect(await session(paused.sessionId)).toMatchObject({ status: "completed", turns: 1 });
    // the decision again: refused, and nothing runs twice
    expect(await decide("ada", paused.sessionId, paused.approval.approval_id, { decision: "approve" })).toMatchObject({ success: false });
  });

  it("answers the model with the member's words when the call is rejected", async () => {
    const paused = await pausedTurn("save {project-root}/docs/a.md");
    const events = await runEvents(paused.sessionId, paused.approval.approval_id, () =>
      decide("ada", paused.sessionId, paused.approval.approval_id, { decision: "reject", message: "Write it to b.md instead" }),
    );
    expect(events.find((event) => event.type === "tool_result")).toMatchObject({ success: false, error_code: "TOOL_CALL_REJECTED" });
    expect(events.at(-1)).toMatchObject({ type: "done", response: expect.stringContaining("Write it to b.md instead") });
  });

  it("ends the turn with APPROVAL_EXPIRED once nobody decided in time, keeping what it wrote", async () => {
    const paused = await pausedTurn("save {project-root}/docs/a.md");
    // the call's expiry moved into the past, as a day's wait would leave it
    const kv = await connection.jetstream().views.kv(jetStreamNames(prefix).approvalsBucket);
    const key = `approval.${paused.sessionId}.${paused.approval.approval_id}`;
    const entry = await kv.get(key);
    const record = decodeJson(entry?.value ?? new Uint8Array(), ApprovalRecord);
    const events = await runEvents(paused.sessionId, paused.approval.approval_id, () => kv.update(key, encodeJson({ ...record, expires_at: new Date(Date.now() - 1_000).toISOString() }), entry?.revision ?? 0));
    expect(events.at(-1)).toMatchObject({ type: "error", error: { code: "APPROVAL_EXPIRED" } });
    expect(events[1]).toMatchObject({ type: "approval_decided", decision: "expire" });
    const view = await session(paused.sessionId);
    expect(view).toMatchObject({ status: "failed", turns: 1 });
    // the chat goes on: its next turn is a model's conversation again (every call answered)
    const next = await runTestTurn(connection, prefix, "and now?", { owner: "ada", sessionId: paused.sessionId });
    expect(next.final).toMatchObject({ type: "done", response: "Noted: and now?" });
  });

  it("ends the turn with CANCELLED when the chat is cancelled while it waits", async () => {
    const paused = await pausedTurn("save {project-root}/docs/a.md");
    const events = await runEvents(paused.sessionId, paused.approval.approval_id, async () =>
      connection.publish(prefix + subjects.runCancel(paused.sessionId), encodeJson({ session_id: paused.sessionId, by: "ada" })),
    );
    expect(events[1]).toMatchObject({ type: "approval_decided", decision: "cancel", by: "ada" });
    expect(events.at(-1)).toMatchObject({ type: "error", error: { code: "CANCELLED" } });
    expect(await session(paused.sessionId)).toMatchObject({ status: "cancelled" });
  });

  it("case 281: runs a resume only from its own subject, only for a decided call, and only while the chat waits for it", async () => {
    const paused = await pausedTurn("save {project-root}/docs/a.md");
    const { approval_id: approvalId } = paused.approval;
    const resume = {
      run_id: approvalId,
      session_id: paused.sessionId,
      new_session: false,
      agent_id: "tester",
      message: "resume",
      owner: "ada",
      project_id: projectId,
      expires_at: Date.now() + 60_000,
      resume: { approval_id: approvalId },
    };
    const js = connection.jetstream();
    const manager = await connection.jetstreamManager();
    const names = jetStreamNames(prefix);
    const consumed = () =>
      expect.poll(async () => {
        const info = await manager.consumers.info(names.runRequests, names.runRequestsConsumer);
        return info.num_pending + info.num_ack_pending;
      }).toBe(0);
    // on the resume subject while the call is still pending: nothing to resume from
    await js.publish(prefix + runResumeSubject(paused.sessionId, approvalId), encodeJson(resume), { msgID: `early-${approvalId}` });
    await consumed();
    // the call approved (its resume not queued), then a resume on a user's subject, which the gateway may publish to
    const kv = await js.views.kv(names.approvalsBucket);
    const key = `approval.${paused.sessionId}.${approvalId}`;
    const entry = await kv.get(key);
    const record = decodeJson(entry?.value ?? new Uint8Array(), ApprovalRecord);
    await kv.update(key, encodeJson({ ...record, status: "approved", decided: { outcome: "approve", by: "ada", at: new Date().toISOString() } }), entry?.revision ?? 0);
    await js.publish(prefix + subjects.runRequest(paused.sessionId), encodeJson(resume), { msgID: `forged-${approvalId}` });
    await consumed();
    expect(await session(paused.sessionId)).toMatchObject({ status: "awaiting_approval" });
    const saves = () => runner.calls.filter((call) => call.subject.endsWith("save_output") && call.body.call_id.startsWith(approvalId));
    expect(saves()).toEqual([]);
    // on its own subject it resumes, once
    const events = await runEvents(paused.sessionId, approvalId, () => js.publish(prefix + runResumeSubject(paused.sessionId, approvalId), encodeJson(resume), { msgID: approvalId }));
    expect(events.at(-1)).toMatchObject({ type: "done" });
    expect(saves()).toHaveLength(1);
  });
});
