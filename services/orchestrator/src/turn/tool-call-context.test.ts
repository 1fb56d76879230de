/**
 * What a turn tells the tools about the chat in each call's context:
 * - the project's `repository.network` as `network` (docs/commands.md): run_command's sandbox uses the network only
 *   when the project's settings allow it;
 * - the chat's branch and its member's name (docs/repositories.md "Branches and working trees", "Commits by the
 *   model"): every call of a chat started on a branch carries it, on the chat's later turns too; a continued chat
 *   naming another branch is refused; the owner's name is the commits' author.
 */
import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { requestJson } from "@agent-orchestrator/shared/runtime";
import { ProjectReply, ProjectSettingsReply, subjects } from "@agent-orchestrator/shared/wire";
import type { z } from "zod";
import { startHttpModel, type ChatRequestBody, type HttpModel } from "@agent-orchestrator/testing/http-model";
import type { Orchestrator } from "../orchestrator-service.js";
import { runTestTurn, startFakeServices, startTestOrchestrator, type FakeToolRunner } from "../testing/orchestrator-fixture.js";

const prefix = "toolcontext1.";
let connection: NatsConnection;
let model: HttpModel;
let runner: FakeToolRunner;
let orchestrator: Orchestrator;

/** Every first message makes the model read one file; after the result it says it is done. */
const respond = (request: ChatRequestBody) =>
  request.messages.at(-1)?.role === "tool" ? { text: "Read." } : { text: "Reading.", toolCalls: [{ name: "read_file", arguments: { file_path: "{project-root}/docs/a.md" } }] };

const ask = <S extends z.ZodType>(subject: string, body: Record<string, unknown>, schema: S): Promise<z.infer<S>> =>
  requestJson(connection, prefix + subject, body, schema, { timeoutMs: 10_000 });

async function project(name: string, settings?: Record<string, unknown>): Promise<string> {
  const created = await ask(subjects.projectRequest("create"), { user: "ada", name }, ProjectReply);
  if (!created.success) throw new Error(created.error.message);
  if (settings) {
    const put = await ask(subjects.projectRequest("settings_put"), { user: "ada", project_id: created.project.id, settings }, ProjectSettingsReply);
    if (!put.success) throw new Error(put.error.message);
  }
  return created.project.id;
}

const readContexts = () => runner.calls.filter((call) => call.subject.endsWith("read_file")).map((call) => call.body.context);
const contextsOf = (sessionId: string) => readContexts().filter((context) => context.session_id === sessionId);

beforeAll(async () => {
  connection = await connect({ servers: inject("natsUrl") });
  model = await startHttpModel({ responder: respond });
  runner = startFakeServices(connection, prefix, { toolRunner: true });
  runner.files["{project-root}/docs/a.md"] = "a";
  orchestrator = await startTestOrchestrator(connection, prefix, { OPENAI_BASE_URL: model.url, OPENAI_API_KEY: "k", LLM_MODEL: "scripted" });
});

afterAll(async () => {
  await orchestrator.stop();
  await model.close();
  await connection.drain();
});

describe("a tool call's network", () => {
  it("is set only in a project whose settings allow its commands the network", async () => {
    const open = await project("Open", { repository: { network: true } });
    const closed = await project("Closed", { repository: { network: false } });
    const plain = await project("Plain");
    for (const projectId of [open, closed, plain]) await runTestTurn(connection, prefix, "read it", { owner: "ada", projectId, timeoutMs: 20_000 });
    const projects = new Set([open, closed, plain]);
    // each turn reads more than once (the agent's start, then the model's call): every call of a project says the same
    const pairs = [...new Set(readContexts().filter((context) => projects.has(context.project_id)).map((context) => JSON.stringify([context.project_id, context.network ?? null])))].map((pair) => JSON.parse(pair) as unknown);
    expect(pairs).toEqual([
      [open, true],
      [closed, null],
      [plain, null],
    ]);
  });
});

describe("a tool call's branch and author", () => {
  it("carry the branch a chat was started on, on every turn, and the owner's name", async () => {
    const first = await runTestTurn(connection, prefix, "read it", { branch: "story/1-2", callerName: "Ada Lovelace", timeoutMs: 20_000 });
    expect(first.final?.type).toBe("done");
    await runTestTurn(connection, prefix, "again", { sessionId: first.sessionId, callerName: "Ada Lovelace", timeoutMs: 20_000 });
    const contexts = contextsOf(first.sessionId);
    expect(contexts.length).toBeGreaterThanOrEqual(2);
    for (const context of contexts) expect(context).toMatchObject({ branch: "story/1-2", author_name: "Ada Lovelace" });
  });

  it("carry no branch for a chat started on none, and refuse a continued chat naming another", async () => {
    const plain = await runTestTurn(connection, prefix, "read it", { timeoutMs: 20_000 });
    for (const context of contextsOf(plain.sessionId)) expect(context).not.toHaveProperty("branch");
    const moved = await runTestTurn(connection, prefix, "elsewhere", { sessionId: plain.sessionId, branch: "main", timeoutMs: 20_000 });
    expect(moved.final).toMatchObject({ type: "error", error: { code: "BAD_REQUEST", message: expect.stringContaining("stays on the branch") } });
  });
});
