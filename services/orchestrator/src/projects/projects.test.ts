import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { decodeJson, requestJson } from "@agent-orchestrator/shared/runtime";
import {
  ProjectChanged,
  ProjectDeleteReply,
  ProjectListReply,
  ProjectMembersReply,
  ProjectReply,
  SessionGetReply,
  SessionListReply,
  subjects,
  type ProjectOperation,
  type ProjectView,
} from "@agent-orchestrator/shared/wire";
import type { z } from "zod";
import { startHttpModel, type Responder, type HttpModel } from "@agent-orchestrator/testing/http-model";
import type { Orchestrator } from "../orchestrator-service.js";
import { runTestTurn, startFakeServices, startTestOrchestrator, type FakeToolRunner, type TurnOptions } from "../testing/orchestrator-fixture.js";

const prefix = "proj1.";
let connection: NatsConnection;
let model: HttpModel;
let runner: FakeToolRunner;
let orchestrator: Orchestrator;

beforeAll(async () => {
  connection = await connect({ servers: inject("natsUrl") });
  model = await startHttpModel({ responder: () => ({ text: "ok" }) });
  runner = startFakeServices(connection, prefix, { toolRunner: true });
  orchestrator = await startTestOrchestrator(connection, prefix, { OPENAI_BASE_URL: model.url, OPENAI_API_KEY: "k", LLM_MODEL: "scripted" });
});

afterAll(async () => {
  await orchestrator.stop();
  await model.close();
  await connection.drain();
});

const ask = <S extends z.ZodType>(operation: ProjectOperation, body: Record<string, unknown>, schema: S): Promise<z.infer<S>> =>
  requestJson(connection, prefix + subjects.projectRequest(operation), body, schema, { timeoutMs: 10_000 });

async function createProject(user: string, name: string): Promise<ProjectView> {
  const reply = await ask("create", { user, name }, ProjectReply);
  if (!reply.success) throw new Error(reply.error.message);
  return reply.project;
}

const addMember = (owner: string, projectId: string, member: string, role: "editor" | "viewer") =>
  ask("member_put", { user: owner, project_id: projectId, member, role }, ProjectMembersReply);

const turn = (message: string, options: TurnOptions) => runTestTurn(connection, prefix, message, { timeoutMs: 20_000, ...options });
const listChats = (user: string, projectId?: string) =>
  requestJson(connection, prefix + subjects.sessionList, { user, ...(projectId ? { project_id: projectId } : {}) }, SessionListReply, { timeoutMs: 10_000 });
const getChat = (user: string, sessionId: string) => requestJson(connection, prefix + subjects.sessionGet, { session_id: sessionId, user }, SessionGetReply, { timeoutMs: 10_000 });

describe("projects", () => {
  it("lets the owner create, rename and manage members, members read, and answers a non-member like a missing project (docs/security.md case 147)", async () => {
    const project = await createProject("alice", "Launch");
    expect(project).toMatchObject({ name: "Launch", owner: "alice", role: "owner", personal: false });

    const missing = await ask("get", { user: "alice", project_id: "no-such-project" }, ProjectReply);
    const hidden = await ask("get", { user: "bob", project_id: project.id }, ProjectReply);
    expect(hidden).toEqual(missing);
    expect(hidden).toMatchObject({ success: false, error: { code: "PROJECT_NOT_FOUND" } });
    expect(await ask("members", { user: "bob", project_id: project.id }, ProjectMembersReply)).toEqual(missing);

    expect(await addMember("alice", project.id, "bob", "viewer")).toMatchObject({
      success: true,
      members: [
        { user: "alice", role: "owner" },
        { user: "bob", role: "viewer" },
      ],
    });
    expect(await ask("get", { user: "bob", project_id: project.id }, ProjectReply)).toMatchObject({ success: true, project: { id: project.id, role: "viewer" } });
    const bobs = await ask("list", { user: "bob" }, ProjectListReply);
    expect(bobs.success && bobs.projects.map((view) => [view.name, view.role])).toEqual([
      ["Personal", "owner"],
      ["Launch", "viewer"],
    ]);

    // only the owner renames, deletes and manages members
    for (const [operation, body] of [
      ["rename", { name: "Mine now" }],
      ["member_put", { member: "carol", role: "editor" }],
      ["member_delete", { member: "bob" }],
      ["delete", {}],
    ] as const) {
      expect(await ask(operation, { user: "bob", project_id: project.id, ...body }, ProjectReply.or(ProjectDeleteReply))).toMatchObject({
        success: false,
        error: { code: "PROJECT_FORBIDDEN" },
      });
    }
    expect(await addMember("alice", project.id, "alice", "editor")).toMatchObject({ success: false, error: { code: "BAD_REQUEST" } });
    expect(await ask("member_delete", { user: "alice", project_id: project.id, member: "alice" }, ProjectMembersReply)).toMatchObject({
      success: false,
      error: { code: "BAD_REQUEST" },
    });

    expect(await ask("rename", { user: "alice", project_id: project.id, name: "Launch v2" }, ProjectReply)).toMatchObject({ success: true, project: { name: "Launch v2" } });
    expect(await ask("member_delete", { user: "alice", project_id: project.id, member: "bob" }, ProjectMembersReply)).toMatchObject({
      success: true,
      members: [{ user: "alice", role: "owner" }],
    });
    expect(await ask("get", { user: "bob", project_id: project.id }, ProjectReply)).toEqual(missing);
  });

  it("gives every user one personal default project, made on first use, that cannot be deleted", async () => {
    const [first, second] = await Promise.all([ask("get", { user: "dora" }, ProjectReply), ask("get", { user: "dora" }, ProjectReply)]);
    expect(first).toMatchObject({ success: true, project: { owner: "dora", role: "owner", personal: true } });
    expect(second).toEqual(first);
    const id = first.success ? first.project.id : "";
    expect(await ask("delete", { user: "dora", project_id: id }, ProjectDeleteReply)).toMatchObject({ success: false, error: { code: "PROJECT_FORBIDDEN" } });
  });

  it("keeps both of two member changes made at once", async () => {
    const project = await createProject("erin", "Team");
    const names = ["m1", "m2", "m3", "m4"];
    await Promise.all(names.map((member, index) => addMember("erin", project.id, member, index % 2 ? "viewer" : "editor")));
    const members = await ask("members", { user: "m1", project_id: project.id }, ProjectMembersReply);
    expect(members.success && members.members.map((member) => member.user)).toEqual(["erin", ...names]);
  });

  it("tells the gateways on project.changed.<project> when members change and when the project is deleted (docs/security.md case 268)", async () => {
    const project = await createProject("olga", "Watched");
    const notices: unknown[] = [];
    const subscription = connection.subscribe(prefix + subjects.projectChanged(project.id), { callback: (_error, message) => notices.push(decodeJson(message.data, ProjectChanged)) });
    await connection.flush();
    await addMember("olga", project.id, "pete", "editor");
    await ask("member_delete", { user: "olga", project_id: project.id, member: "pete" }, ProjectMembersReply);
    // a refused change changes nothing and says nothing
    await ask("member_delete", { user: "pete", project_id: project.id, member: "olga" }, ProjectMembersReply);
    await ask("delete", { user: "olga", project_id: project.id }, ProjectDeleteReply);
    await connection.flush();
    subscription.unsubscribe();
    expect(notices).toEqual([
      { project_id: project.id, change: "members" },
      { project_id: project.id, change: "members" },
      { project_id: project.id, change: "deleted" },
    ]);
  });
});

describe("chats in projects", () => {
  it("puts a new chat into the owner's default project, or the one named, and refuses a viewer's or a non-member's turn, or a chat moved to another project (docs/security.md cases 148, 150)", async () => {
    const personal = await turn("hello", { owner: "frank" });
    expect(personal.final).toMatchObject({ type: "done" });
    const frankDefault = await ask("get", { user: "frank" }, ProjectReply);
    expect(await getChat("frank", personal.sessionId)).toMatchObject({ success: true, session: { project_id: frankDefault.success ? frankDefault.project.id : "", owner: "frank" } });

    const project = await createProject("frank", "Shared");
    await addMember("frank", project.id, "gina", "viewer");
    expect((await turn("may I?", { owner: "gina", projectId: project.id })).final).toMatchObject({ type: "error", error: { code: "PROJECT_FORBIDDEN" } });
    expect((await turn("and I?", { owner: "hank", projectId: project.id })).final).toMatchObject({ type: "error", error: { code: "PROJECT_NOT_FOUND" } });
    expect((await turn("nowhere", { owner: "frank", projectId: "no-such-project" })).final).toMatchObject({ type: "error", error: { code: "PROJECT_NOT_FOUND" } });

    // a continued chat stays in its project
    const moved = await turn("move it", { owner: "frank", sessionId: personal.sessionId, projectId: project.id });
    expect(moved.final).toMatchObject({ type: "error", error: { code: "BAD_REQUEST" } });
  });

  it("stops a member's turns once they are demoted to viewer, and lets only a chat's owner run its turns (docs/security.md case 149)", async () => {
    const project = await createProject("ivy", "Demotion");
    await addMember("ivy", project.id, "jack", "editor");
    const chat = await turn("first", { owner: "jack", projectId: project.id });
    expect(chat.final).toMatchObject({ type: "done" });
    expect((await turn("second", { owner: "jack", sessionId: chat.sessionId })).final).toMatchObject({ type: "done" });
    // the project's owner sees the chat but does not run its turns
    expect((await turn("mine?", { owner: "ivy", sessionId: chat.sessionId })).final).toMatchObject({ type: "error", error: { code: "PROJECT_FORBIDDEN" } });

    await addMember("ivy", project.id, "jack", "viewer");
    expect((await turn("third", { owner: "jack", sessionId: chat.sessionId })).final).toMatchObject({ type: "error", error: { code: "PROJECT_FORBIDDEN" } });
    await ask("member_delete", { user: "ivy", project_id: project.id, member: "jack" }, ProjectMembersReply);
    expect((await turn("fourth", { owner: "jack", sessionId: chat.sessionId })).final).toMatchObject({ type: "error", error: { code: "PROJECT_NOT_FOUND" } });
  });

  it("lists and shows a project's chats to its members, and to nobody else", async () => {
    const project = await createProject("kate", "Visible");
    await addMember("kate", project.id, "liam", "viewer");
    const chat = await turn("our plan", { owner: "kate", projectId: project.id });
    const own = await turn("my own", { owner: "liam" });

    const liams = await listChats("liam");
    expect(liams.success && liams.sessions.map((session) => [session.id, session.owner]).sort()).toEqual(
      [
        [chat.sessionId, "kate"],
        [own.sessionId, "liam"],
      ].sort(),
    );
    const inProject = await listChats("liam", project.id);
    expect(inProject.success && inProject.sessions).toMatchObject([{ id: chat.sessionId, owner: "kate", project_id: project.id, title: "our plan" }]);
    expect(await getChat("liam", chat.sessionId)).toMatchObject({ success: true, session: { owner: "kate", messages: [{ role: "user", content: "our plan" }, { role: "assistant" }] } });

    const missing = await getChat("mia", "no-such-chat");
    expect(missing).toMatchObject({ success: false, error: { code: "SESSION_NOT_FOUND" } });
    expect(await getChat("mia", chat.sessionId)).toEqual(missing);
    expect(await listChats("mia", project.id)).toMatchObject({ success: false, error: { code: "PROJECT_NOT_FOUND" } });
    const mias = await listChats("mia");
    expect(mias.success && mias.sessions).toEqual([]);
  });

  it("refuses to delete a project while a chat of it runs a turn, then deletes its chats and files", async () => {
    const project = await createProject("nina", "Doomed");
    const idle = await turn("an idle chat", { owner: "nina", projectId: project.id });
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let started = () => {};
    const modelCalled = new Promise<void>((resolve) => (started = resolve));
    const answer: Responder = async () => {
      started();
      await held;
      return { text: "finally" };
    };
    model.setResponder(answer);
    try {
      const running = turn("a long turn", { owner: "nina", projectId: project.id });
      await modelCalled;
      expect(await ask("delete", { user: "nina", project_id: project.id }, ProjectDeleteReply)).toMatchObject({ success: false, error: { code: "PROJECT_BUSY" } });
      release();
      const busy = await running;
      expect(busy.final).toMatchObject({ type: "done" });

      runner.spaceFiles[`project:${project.id}`] = 3;
      runner.spaceFiles[`session:${idle.sessionId}`] = 1;
      const deleted = await ask("delete", { user: "nina", project_id: project.id }, ProjectDeleteReply);
      expect(deleted).toEqual({ success: true, deleted: { sessions: 2, files: 4 } });
      expect(runner.purges.filter((space) => space.id === project.id || space.id === idle.sessionId || space.id === busy.sessionId)).toEqual(
        expect.arrayContaining([
          { kind: "project", id: project.id },
          { kind: "session", id: idle.sessionId },
          { kind: "session", id: busy.sessionId },
        ]),
      );
      expect(await ask("get", { user: "nina", project_id: project.id }, ProjectReply)).toMatchObject({ success: false, error: { code: "PROJECT_NOT_FOUND" } });
      expect(await getChat("nina", idle.sessionId)).toMatchObject({ success: false, error: { code: "SESSION_NOT_FOUND" } });
      const left = await listChats("nina");
      expect(left.success && left.sessions).toEqual([]);
    } finally {
      release();
      model.setResponder(() => ({ text: "ok" }));
    }
  });
});
