import { createHash } from "node:crypto";
import { connect, type NatsConnection, type Subscription } from "nats";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { decodeJson, requestJson } from "@agent-orchestrator/shared/runtime";
import {
  ApprovalDecideReply,
  ApprovalListReply,
  AuditRecord,
  jetStreamNames,
  ProjectDeleteReply,
  ProjectMembersReply,
  ProjectReply,
  SessionDeleteReply,
  subjects,
  type ApprovalRecord,
} from "@agent-orchestrator/shared/wire";
import type { z } from "zod";
import { startHttpModel, type HttpModel } from "@agent-orchestrator/testing/http-model";
import type { Orchestrator } from "../orchestrator-service.js";
import { ApprovalStore } from "../approvals/approval-store.js";
import { runTestTurn, startFakeServices, startTestOrchestrator } from "../testing/orchestrator-fixture.js";
import { pendingRecord } from "../testing/pending-approval.js";

const prefix = "approvals1.";
let connection: NatsConnection;
let model: HttpModel;
let orchestrator: Orchestrator;
let store: ApprovalStore;
let audit: Subscription;
const audited: AuditRecord[] = [];
let projectId = "";
let chat = "";
let otherChat = "";

const ask = <S extends z.ZodType>(subject: string, body: Record<string, unknown>, schema: S): Promise<z.infer<S>> =>
  requestJson(connection, prefix + subject, body, schema, { timeoutMs: 10_000 });
const list = (user: string, sessionId?: string) => ask(subjects.approvalList, { user, ...(sessionId ? { session_id: sessionId } : {}) }, ApprovalListReply);
const decide = (user: string, sessionId: string, approvalId: string, decision: Record<string, unknown>) =>
  ask(subjects.approvalDecide, { user, session_id: sessionId, approval_id: approvalId, ...decision }, ApprovalDecideReply);

/** A pending call of erin's chat in the team project, stored as the paused turn stores it. */
async function pending(change: Partial<ApprovalRecord> = {}): Promise<ApprovalRecord> {
  const record = pendingRecord({ session_id: chat, project_id: projectId, ...change });
  await store.create(record);
  return record;
}

beforeAll(async () => {
  connection = await connect({ servers: inject("natsUrl") });
  model = await startHttpModel({ responder: () => ({ text: "Hello." }) });
  startFakeServices(connection, prefix, { toolRunner: true });
  orchestrator = await startTestOrchestrator(connection, prefix, { OPENAI_BASE_URL: model.url, OPENAI_API_KEY: "k", LLM_MODEL: "scripted" });
  store = await ApprovalStore.open(connection, jetStreamNames(prefix).approvalsBucket);
  audit = connection.subscribe(`${prefix}audit.>`, { callback: (_error, message) => audited.push(decodeJson(message.data, AuditRecord)) });
  const created = await ask(subjects.projectRequest("create"), { user: "olive", name: "Team" }, ProjectReply);
  if (!created.success) throw new Error(created.error.message);
  projectId = created.project.id;
  for (const [member, role] of [["erin", "editor"], ["ed", "editor"], ["vic", "viewer"]] as const) {
    await ask(subjects.projectRequest("member_put"), { user: "olive", project_id: projectId, member, role }, ProjectMembersReply);
  }
  chat = (await runTestTurn(connection, prefix, "hi", { owner: "erin", projectId })).sessionId;
  otherChat = (await runTestTurn(connection, prefix, "hi again", { owner: "erin", projectId })).sessionId;
});

afterAll(async () => {
  audit.unsubscribe();
  await orchestrator.stop();
  await model.close();
  await connection.drain();
});

describe("listing pending tool calls", () => {
  it("shows a chat's pending calls to every member, and which of them may decide; a non-member hears the chat does not exist", async () => {
    const record = await pending({ deciders: "requester" });
    const seen = await list("vic", chat);
    expect(seen).toMatchObject({ success: true });
    const view = seen.success ? seen.approvals.find((item) => item.approval_id === record.approval_id) : undefined;
    expect(view).toMatchObject({ tool: "save_output", arguments: record.arguments, requester: "erin", status: "pending", may_decide: false });
    const byErin = await list("erin", chat);
    expect(byErin.success && byErin.approvals.find((item) => item.approval_id === record.approval_id)?.may_decide).toBe(true);
    expect(await list("mallory", chat)).toMatchObject({ success: false, error: { code: "SESSION_NOT_FOUND" } });
  });

  it("lists across projects only the calls the caller may decide", async () => {
    const mine = await pending({ deciders: "requester" });
    const anyEditor = await pending({ deciders: "editors" });
    const ids = async (user: string) => {
      const reply = await list(user);
      return reply.success ? reply.approvals.map((item) => item.approval_id) : [];
    };
    expect(await ids("olive")).toEqual(expect.arrayContaining([mine.approval_id, anyEditor.approval_id]));
    expect(await ids("erin")).toEqual(expect.arrayContaining([mine.approval_id, anyEditor.approval_id]));
    const byEd = await ids("ed");
    expect(byEd).toContain(anyEditor.approval_id);
    expect(byEd).not.toContain(mine.approval_id);
    expect(await ids("vic")).toEqual([]);
    expect(await ids("mallory")).toEqual([]);
  });
});

describe("deciding a pending tool call", () => {
  it("case 95: refuses a viewer (403), an editor who may not decide (403), a non-member (404) and another chat's id (404); the call stays pending", async () => {
    const record = await pending();
    expect(await decide("vic", chat, record.approval_id, { decision: "approve" })).toMatchObject({ success: false, error: { code: "PROJECT_FORBIDDEN" } });
    expect(await decide("ed", chat, record.approval_id, { decision: "approve" })).toMatchObject({ success: false, error: { code: "PROJECT_FORBIDDEN" } });
    expect(await decide("mallory", chat, record.approval_id, { decision: "approve" })).toMatchObject({ success: false, error: { code: "SESSION_NOT_FOUND" } });
    expect(await decide("erin", otherChat, record.approval_id, { decision: "approve" })).toMatchObject({ success: false, error: { code: "APPROVAL_NOT_FOUND" } });
    expect((await store.get(chat, record.approval_id))?.record.status).toBe("pending");
    expect(audited.filter((entry) => entry.call?.approval_id === record.approval_id)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ actor: "vic", action: "approval_decided", outcome: "refused" }),
        expect.objectContaining({ actor: "ed", action: "approval_decided", outcome: "refused" }),
      ]),
    );
  });

  it("lets any editor decide when the project says editors", async () => {
    const record = await pending({ deciders: "editors" });
    expect(await decide("ed", chat, record.approval_id, { decision: "reject", message: "Not that file" })).toMatchObject({
      success: true,
      approval: { status: "rejected", decided: { outcome: "reject", by: "ed", message: "Not that file" } },
    });
  });

  it("case 96: records an approval with edited arguments once, and the audit record holds both argument sets", async () => {
    const record = await pending();
    const edited = { file_path: "{project-root}/docs/b.md", content: "edited" };
    expect(await decide("olive", chat, record.approval_id, { decision: "approve", arguments: { file_path: "x" } })).toMatchObject({
      success: false,
      error: { code: "VALIDATION_ERROR", message: expect.stringContaining("save_output") },
    });
    expect(await decide("olive", chat, record.approval_id, { decision: "approve", arguments: edited })).toMatchObject({
      success: true,
      approval: { status: "approved", decided: { outcome: "approve", by: "olive", arguments_edited: true } },
    });
    expect((await store.get(chat, record.approval_id))?.record.decided?.arguments).toEqual(edited);
    // the same decision again, from the requester: refused, naming who decided
    expect(await decide("erin", chat, record.approval_id, { decision: "approve" })).toMatchObject({
      success: false,
      error: { code: "APPROVAL_DECIDED", message: expect.stringContaining("olive") },
    });
    const sha256 = (value: unknown) => createHash("sha256").update(JSON.stringify(value)).digest("hex");
    await expect.poll(() => audited.find((entry) => entry.call?.approval_id === record.approval_id && entry.outcome === "ok")).toMatchObject({
      actor: "olive",
      project_id: projectId,
      target: chat,
      call: { tool: "save_output", arguments: record.arguments, arguments_sha256: sha256(record.arguments), edited_arguments: edited, edited_arguments_sha256: sha256(edited) },
    });
  });

  it("counts arguments the same as the model's as no edit", async () => {
    const record = await pending();
    const reply = await decide("erin", chat, record.approval_id, { decision: "approve", arguments: { ...record.arguments } });
    expect(reply.success && reply.approval.decided?.arguments_edited).toBeUndefined();
    expect((await store.get(chat, record.approval_id))?.record.decided?.arguments).toBeUndefined();
  });

  it("refuses a decision once the call has expired", async () => {
    const record = await pending({ expires_at: new Date(Date.now() - 1_000).toISOString() });
    expect(await decide("erin", chat, record.approval_id, { decision: "approve" })).toMatchObject({ success: false, error: { code: "APPROVAL_DECIDED", message: expect.stringContaining("expired") } });
  });
});

describe("a chat or a project deleted while a call waits", () => {
  /** The marks the bucket holds for a chat: what the listings and the sweep read. */
  const marksOf = async (project: string, sessionId: string): Promise<string[]> => {
    const kv = await connection.jetstream().views.kv(jetStreamNames(prefix).approvalsBucket);
    const keys: string[] = [];
    for await (const key of await kv.keys(`pending.${project}.${sessionId}.*`)) keys.push(key);
    return keys;
  };
  const listed = async (user: string): Promise<string[]> => {
    const reply = await list(user);
    return reply.success ? reply.approvals.map((item) => item.approval_id) : [];
  };

  it("case 317: deleting the chat removes its waiting and decided calls and their marks: nobody lists them, nobody can decide them", async () => {
    const doomed = (await runTestTurn(connection, prefix, "to be deleted", { owner: "erin", projectId })).sessionId;
    const waiting = await pending({ session_id: doomed });
    const decided = await pending({ session_id: doomed });
    await decide("erin", doomed, decided.approval_id, { decision: "approve" });
    const kept = await pending();
    expect(await listed("olive")).toEqual(expect.arrayContaining([waiting.approval_id, kept.approval_id]));
    expect(await marksOf(projectId, doomed)).toHaveLength(2);

    expect(await ask(subjects.sessionDelete, { user: "erin", session_id: doomed }, SessionDeleteReply)).toEqual({ success: true });
    expect(await store.get(doomed, waiting.approval_id)).toBeUndefined();
    expect(await store.get(doomed, decided.approval_id)).toBeUndefined();
    expect(await marksOf(projectId, doomed)).toEqual([]);
    const afterwards = await listed("olive");
    expect(afterwards).not.toContain(waiting.approval_id);
    expect(afterwards).toContain(kept.approval_id);
    expect(await decide("erin", doomed, waiting.approval_id, { decision: "approve" })).toMatchObject({ success: false, error: { code: "SESSION_NOT_FOUND" } });
  });

  it("case 317: deleting the project removes the waiting calls of every chat of it", async () => {
    const created = await ask(subjects.projectRequest("create"), { user: "olive", name: "Short-lived" }, ProjectReply);
    if (!created.success) throw new Error(created.error.message);
    const doomedProject = created.project.id;
    const chats = [
      (await runTestTurn(connection, prefix, "one", { owner: "olive", projectId: doomedProject })).sessionId,
      (await runTestTurn(connection, prefix, "two", { owner: "olive", projectId: doomedProject })).sessionId,
    ];
    const calls = await Promise.all(chats.map((sessionId) => pending({ session_id: sessionId, project_id: doomedProject, requester: "olive" })));
    expect(await listed("olive")).toEqual(expect.arrayContaining(calls.map((call) => call.approval_id)));

    expect(await ask(subjects.projectRequest("delete"), { user: "olive", project_id: doomedProject }, ProjectDeleteReply)).toMatchObject({ success: true, deleted: { sessions: 2 } });
    for (const call of calls) {
      expect(await store.get(call.session_id, call.approval_id)).toBeUndefined();
      expect(await marksOf(doomedProject, call.session_id)).toEqual([]);
    }
    const afterwards = await listed("olive");
    for (const call of calls) expect(afterwards).not.toContain(call.approval_id);
  });
});
