/**
 * The chat's branch and its member's name reach the tools (docs/repositories.md "Branches and working trees",
 * "Commits by the model"): every call of a chat started on a branch carries it, on the chat's later turns too; a
 * continued chat naming another branch is refused; the owner's name is the commits' author.
 */
import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startHttpModel, type ChatRequestBody, type HttpModel } from "@agent-orchestrator/testing/http-model";
import type { Orchestrator } from "../orchestrator-service.js";
import { runTestTurn, startFakeServices, startTestOrchestrator, type FakeToolRunner } from "../testing/orchestrator-fixture.js";

const prefix = "branch1.";
let connection: NatsConnection;
let model: HttpModel;
let runner: FakeToolRunner;
let orchestrator: Orchestrator;

/** Every first message makes the model read one file; after the result it says it is done. */
const respond = (request: ChatRequestBody) =>
  request.messages.at(-1)?.role === "tool" ? { text: "Read." } : { text: "Reading.", toolCalls: [{ name: "read_file", arguments: { file_path: "{project-root}/docs/a.md" } }] };

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

const contextsOf = (sessionId: string) =>
  runner.calls.filter((call) => call.subject.endsWith("read_file") && call.body.context.session_id === sessionId).map((call) => call.body.context);

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
