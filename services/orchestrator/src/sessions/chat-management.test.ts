import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { requestJson } from "@agent-orchestrator/shared/runtime";
import {
  ProjectMembersReply,
  ProjectReply,
  SessionDeleteReply,
  SessionGetReply,
  SessionListReply,
  SessionRenameReply,
  SessionSearchReply,
  subjects,
} from "@agent-orchestrator/shared/wire";
import type { z } from "zod";
import { startHttpModel, type Responder, type HttpModel } from "@agent-orchestrator/testing/http-model";
import { withoutSystemNote } from "@agent-orchestrator/testing/system-note";
import type { Orchestrator } from "../orchestrator-service.js";
import { runTestTurn, startFakeServices, startTestOrchestrator, testAgent, type FakeToolRunner, type TurnOptions } from "../testing/orchestrator-fixture.js";

const prefix = "chats1.";
let connection: NatsConnection;
let model: HttpModel;
let runner: FakeToolRunner;
let orchestrator: Orchestrator;

/** A turn the test holds at the model until it lets it go: the chat runs a turn meanwhile. */
let hold: { reached: () => void; released: Promise<void> } | undefined;

const respond: Responder = async (request) => {
  const last = request.messages.at(-1);
  if (last?.role === "tool") return { text: "All done." };
  const said = withoutSystemNote(String(last?.content ?? ""));
  if (said === "hold" && hold) {
    hold.reached();
    await hold.released;
    return { text: "held answer" };
  }
  if (said === "use tools") {
    return {
      toolCalls: [
        { name: "load_skill", arguments: { name: "bmad-prd" } },
        { name: "save_output", arguments: { file_path: "{project-root}/docs/plan.md", content: "# Plan" } },
        { name: "read_file", arguments: { file_path: "{project-root}/zebra.md" } },
      ],
    };
  }
  return { text: `Noted: ${said}` };
};

/** An agent whose menu runs a skill, so it is offered load_skill. */
const skillUser = { ...testAgent, id: "prd-coach", menu: [{ trigger: "PRD", description: "Write a PRD", skill: "bmad-prd" }] };

beforeAll(async () => {
  connection = await connect({ servers: inject("natsUrl") });
  model = await startHttpModel({ responder: respond });
  runner = startFakeServices(connection, prefix, { toolRunner: true, agents: [skillUser] });
  runner.skills["bmad-prd"] = { success: true, instructions: "Write the PRD" };
  // the fake tool-runner answers a call naming one of its files with that file
  runner.files["{project-root}/docs/plan.md"] = "# Plan";
  runner.files["{project-root}/zebra.md"] = "a striped secret";
  orchestrator = await startTestOrchestrator(connection, prefix, { OPENAI_BASE_URL: model.url, OPENAI_API_KEY: "k", LLM_MODEL: "scripted" });
});

afterAll(async () => {
  await orchestrator.stop();
  await model.close();
  await connection.drain();
});

const ask = <S extends z.ZodType>(subject: string, body: Record<string, unknown>, schema: S): Promise<z.infer<S>> =>
  requestJson(connection, prefix + subject, body, schema, { timeoutMs: 10_000 });
const turn = (message: string, options: TurnOptions) => runTestTurn(connection, prefix, message, { timeoutMs: 20_000, ...options });
const rename = (user: string, sessionId: string, title: string) => ask(subjects.sessionRename, { user, session_id: sessionId, title }, SessionRenameReply);
const remove = (user: string, sessionId: string) => ask(subjects.sessionDelete, { user, session_id: sessionId }, SessionDeleteReply);
const search = (user: string, projectId: string, query: string) => ask(subjects.sessionSearch, { user, project_id: projectId, query }, SessionSearchReply);
const getChat = (user: string, sessionId: string) => ask(subjects.sessionGet, { user, session_id: sessionId }, SessionGetReply);

/** A project of alice's with bob as editor and carol as viewer. */
async function teamProject(name: string): Promise<string> {
  const created = await ask(subjects.projectRequest("create"), { user: "alice", name }, ProjectReply);
  if (!created.success) throw new Error(created.error.message);
  for (const [member, role] of [["bob", "editor"], ["carol", "viewer"]] as const) {
    await ask(subjects.projectRequest("member_put"), { user: "alice", project_id: created.project.id, member, role }, ProjectMembersReply);
  }
  return created.project.id;
}

/** Starts a turn that stays at the model until the returned `release` is called. */
async function heldTurn(options: TurnOptions): Promise<{ done: ReturnType<typeof turn>; release: () => void }> {
  let release = () => {};
  let reached = () => {};
  const atModel = new Promise<void>((resolve) => (reached = resolve));
  hold = { reached, released: new Promise<void>((resolve) => (release = resolve)) };
  const done = turn("hold", options);
  await atModel;
  return { done, release };
}

describe("renaming a chat", () => {
  it("lets the chat's owner or the project's owner give it a title that the list and the view show, and that later turns keep", async () => {
    const projectId = await teamProject("Rename");
    const chat = await turn("first words", { owner: "bob", projectId });
    expect(await rename("carol", chat.sessionId, "Mine")).toMatchObject({ success: false, error: { code: "PROJECT_FORBIDDEN" } });
    expect(await rename("dave", chat.sessionId, "Mine")).toMatchObject({ success: false, error: { code: "SESSION_NOT_FOUND" } });
    expect(await rename("alice", chat.sessionId, "Launch plan")).toMatchObject({ success: true, session: { id: chat.sessionId, title: "Launch plan", owner: "bob" } });
    expect(await rename("bob", chat.sessionId, "Launch plan v2")).toMatchObject({ success: true, session: { title: "Launch plan v2" } });

    expect((await turn("more words", { owner: "bob", sessionId: chat.sessionId })).final).toMatchObject({ type: "done" });
    const listed = await ask(subjects.sessionList, { user: "carol", project_id: projectId }, SessionListReply);
    expect(listed.success && listed.sessions.map((session) => session.title)).toEqual(["Launch plan v2"]);
    const everywhere = await ask(subjects.sessionList, { user: "bob" }, SessionListReply);
    expect(everywhere.success && everywhere.sessions.find((session) => session.id === chat.sessionId)?.title).toBe("Launch plan v2");
    expect(await getChat("carol", chat.sessionId)).toMatchObject({ success: true, session: { title: "Launch plan v2", turns: 2 } });
  });

  it("does not disturb a running turn: the rename lands and the turn saves", async () => {
    const projectId = await teamProject("Rename running");
    const chat = await turn("start", { owner: "bob", projectId });
    const running = await heldTurn({ owner: "bob", sessionId: chat.sessionId });
    expect(await rename("bob", chat.sessionId, "Renamed mid-turn")).toMatchObject({ success: true, session: { status: "running" } });
    running.release();
    expect((await running.done).final).toMatchObject({ type: "done", response: "held answer" });
    expect(await getChat("bob", chat.sessionId)).toMatchObject({ success: true, session: { title: "Renamed mid-turn", status: "completed", turns: 2 } });
  });
});

describe("searching a project's chats", () => {
  it("finds chats by title or by what was said, ignoring case, newest first, never by tool results; a non-member is told the project does not exist", async () => {
    const projectId = await teamProject("Search");
    const older = await turn("We should discuss PRICING tiers for the launch", { owner: "bob", projectId });
    const newer = await turn("use tools", { owner: "alice", projectId });
    await rename("alice", newer.sessionId, "Pricing page");

    const found = await search("carol", projectId, "pricing");
    expect(found.success && found.sessions.map((session) => [session.id, session.match])).toEqual([
      [newer.sessionId, "Pricing page"],
      [older.sessionId, "We should discuss PRICING tiers for the launch"],
    ]);
    // the agent's answers are searched too
    const answered = await search("carol", projectId, "noted: we");
    expect(answered.success && answered.sessions.map((session) => session.id)).toEqual([older.sessionId]);
    // a tool's result ("a striped secret") is not what the chat showed
    expect(await search("carol", projectId, "striped")).toEqual({ success: true, sessions: [] });
    expect(await search("dave", projectId, "pricing")).toMatchObject({ success: false, error: { code: "PROJECT_NOT_FOUND" } });
  });
});

describe("what a chat did", () => {
  it("shows the skills it ran and the files it wrote, by the paths the model saw", async () => {
    const projectId = await teamProject("Activity");
    const chat = await turn("use tools", { owner: "bob", projectId, agentId: skillUser.id });
    expect(chat.final).toMatchObject({ type: "done" });
    expect(await getChat("carol", chat.sessionId)).toMatchObject({
      success: true,
      session: { workflows: ["bmad-prd"], files_written: ["{project-root}/docs/plan.md"] },
    });
  });
});

describe("deleting a chat", () => {
  it("is refused while it runs a turn and to other members; then removes it with its scratch space", async () => {
    const projectId = await teamProject("Delete");
    const chat = await turn("to be deleted", { owner: "bob", projectId });
    const kept = await turn("stays", { owner: "bob", projectId });
    const running = await heldTurn({ owner: "bob", sessionId: chat.sessionId });
    try {
      expect(await remove("bob", chat.sessionId)).toMatchObject({ success: false, error: { code: "SESSION_BUSY" } });
    } finally {
      running.release();
    }
    expect((await running.done).final).toMatchObject({ type: "done" });
    expect(await remove("carol", chat.sessionId)).toMatchObject({ success: false, error: { code: "PROJECT_FORBIDDEN" } });
    expect(await remove("dave", chat.sessionId)).toMatchObject({ success: false, error: { code: "SESSION_NOT_FOUND" } });

    expect(await remove("bob", chat.sessionId)).toEqual({ success: true });
    expect(runner.purges).toContainEqual({ kind: "session", id: chat.sessionId });
    expect(runner.purges).not.toContainEqual({ kind: "project", id: projectId });
    expect(await getChat("bob", chat.sessionId)).toMatchObject({ success: false, error: { code: "SESSION_NOT_FOUND" } });
    expect(await remove("bob", chat.sessionId)).toMatchObject({ success: false, error: { code: "SESSION_NOT_FOUND" } });
    expect(await rename("bob", chat.sessionId, "ghost")).toMatchObject({ success: false, error: { code: "SESSION_NOT_FOUND" } });
    const listed = await ask(subjects.sessionList, { user: "bob", project_id: projectId }, SessionListReply);
    expect(listed.success && listed.sessions.map((session) => session.id)).toEqual([kept.sessionId]);
    expect(await search("bob", projectId, "deleted")).toEqual({ success: true, sessions: [] });

    // the project's owner may delete a member's chat; a continued turn of a deleted chat finds nothing
    expect(await remove("alice", kept.sessionId)).toEqual({ success: true });
    expect((await turn("again", { owner: "bob", sessionId: kept.sessionId })).final).toMatchObject({ type: "error", error: { code: "SESSION_NOT_FOUND" } });
  });
});
