/**
 * The Responses API on `/v1` (docs/openai-api.md "Responses") through the official `openai` client and the OpenAI
 * Agents SDK in its default (Responses) setup: an agent's whole loop behind `model`, typed stream events,
 * `previous_response_id` continuing the same chat, retrieval under the chat's access rules, a request's own tools
 * refused. Real processes, a private nats-server, the scripted model.
 */
import { Agent, run, setDefaultOpenAIClient, setTracingDisabled } from "@openai/agents";
import OpenAI, { APIError, BadRequestError, NotFoundError } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lastMessage, type ChatRequestBody, type ScriptedTurn } from "@agent-orchestrator/testing/http-model";
import { withoutSystemNote } from "@agent-orchestrator/testing/system-note";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";

const aliceToken = "alice-token-1111";
const bobToken = "bob-token-2222";
let system: TestSystem;
let alice: OpenAI;

/** Echoes the last line the user wrote (a new chat's first message may carry the client's instructions above it). */
function respond(request: ChatRequestBody): ScriptedTurn {
  const last = lastMessage(request);
  if (last?.role === "tool") {
    const result = JSON.parse(String(last.content)) as { content?: string };
    return { text: `The file says:\n${result.content ?? ""}`, usage: { prompt_tokens: 120, completion_tokens: 30, cached_tokens: 100, reasoning_tokens: 7 } };
  }
  const said = withoutSystemNote(String(last?.content ?? ""));
  // the model refuses the request: the turn fails after it started
  if (said === "fail please") return { status: 400 };
  if (said === "show me the config") {
    return { text: "Let me look.", toolCalls: [{ name: "read_file", arguments: { file_path: "{bundle-root}/config.yaml" } }] };
  }
  return { text: `echo: ${said.split("\n").at(-1) ?? ""}` };
}

beforeAll(async () => {
  system = await startTestSystem({ responder: respond, env: { AUTH_TOKENS: `alice:${aliceToken},bob:${bobToken}`, HOST: "127.0.0.1" } });
  alice = new OpenAI({ apiKey: aliceToken, baseURL: `${system.url}/v1`, maxRetries: 0 });
  setTracingDisabled(true);
  setDefaultOpenAIClient(alice);
}, 60_000);

afterAll(() => system?.stop());

/** The texts of the messages the model received last, by role, without the note of the day. */
function lastModelMessages(role: "user" | "assistant"): string[] {
  const seen = system.model.requests.at(-1)?.body;
  return (seen?.messages ?? []).filter((message) => message.role === role).map((message) => withoutSystemNote(String(message.content ?? "")));
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe("responses.create", () => {
  it("runs the agent's loop with a tool round on the server and answers a response with usage and cached tokens", async () => {
    const { data: response, response: http } = await alice.responses.create({ model: "idea-coach", input: "show me the config" }).withResponse();
    expect(response).toMatchObject({ object: "response", status: "completed", model: "idea-coach", error: null, tools: [] });
    expect(response.id).toMatch(/^resp_/);
    expect(response.output_text).toBe(`Let me look.\n\nThe file says:\n${await configText()}`);
    expect(response.output).toEqual([expect.objectContaining({ type: "message", role: "assistant", status: "completed" })]);
    expect(response.usage).toMatchObject({ input_tokens_details: { cached_tokens: 100 }, output_tokens_details: { reasoning_tokens: 7 } });
    expect(response.usage?.total_tokens).toBe((response.usage?.input_tokens ?? 0) + (response.usage?.output_tokens ?? 0));
    expect(response.usage?.input_tokens).toBeGreaterThan(120);
    expect(http.headers.get("x-session-id")).toMatch(/^[\w-]+$/);
    expect(http.headers.get("x-project-id")).toMatch(/^[\w-]+$/);
  });

  it("streams typed events in order, numbered, adding up to the completed response", async () => {
    const stream = await alice.responses.create({ model: "idea-coach", input: "show me the config", stream: true });
    const events = [];
    for await (const event of stream) events.push(event);
    const types = [...new Set(events.map((event) => event.type))];
    expect(types).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_event, index) => index));
    const text = events.flatMap((event) => (event.type === "response.output_text.delta" ? [event.delta] : [])).join("");
    expect(text).toBe(`Let me look.\n\nThe file says:\n${await configText()}`);
    const completed = events.at(-1);
    expect(completed?.type === "response.completed" && completed.response.output).toEqual([expect.objectContaining({ content: [expect.objectContaining({ type: "output_text", text })] })]);
  });

  it("continues the same chat with previous_response_id: the model sees the earlier messages, and the chat is one", async () => {
    const first = await alice.responses.create({ model: "idea-coach", instructions: "Be brief.", input: "first question" }).withResponse();
    expect(first.data.output_text).toBe("echo: first question");
    const second = await alice.responses
      .create({ model: "idea-coach", instructions: "Be brief.", input: [{ role: "user", content: [{ type: "input_text", text: "second question" }] }], previous_response_id: first.data.id })
      .withResponse();
    expect(second.data.output_text).toBe("echo: second question");
    expect(second.data.previous_response_id).toBe(first.data.id);
    expect(second.response.headers.get("x-session-id")).toBe(first.response.headers.get("x-session-id"));
    expect(lastModelMessages("user")).toEqual([expect.stringMatching(/Be brief\.[\s\S]*first question$/), "second question"]);
    expect(lastModelMessages("assistant")).toEqual(["echo: first question"]);
  });

  it("ends a stream whose turn fails with response.failed and an error the client raises, and stores the response as failed", async () => {
    const stream = await alice.responses.create({ model: "idea-coach", input: "fail please", stream: true });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    const error = await caught(
      (async () => {
        for await (const event of stream) events.push(event);
      })(),
    );
    expect(error).toBeInstanceOf(APIError);
    expect(events.at(-1)).toMatchObject({ type: "response.failed", response: { status: "failed" } });
    const created = events[0];
    const id = created?.type === "response.created" ? created.response.id : "";
    expect(await alice.responses.retrieve(id)).toMatchObject({ id, status: "failed", error: { code: expect.any(String), message: expect.any(String) }, output: [] });
  });

  it("refuses a request's own tools with a clear 400, before any turn runs", async () => {
    const before = system.model.requests.length;
    const error = await caught(
      alice.responses.create({ model: "idea-coach", input: "hi", tools: [{ type: "function", name: "lookup", parameters: { type: "object", properties: {} }, strict: true }] }),
    );
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error).toMatchObject({ status: 400, code: "validation_error", type: "invalid_request_error" });
    expect((error as BadRequestError).message).toMatch(/tools.*run on this server/);
    expect(system.model.requests.length).toBe(before);
  });
});

describe("responses.stream", () => {
  it("gives the helper's text events and a final response that can be retrieved", async () => {
    const stream = alice.responses.stream({ model: "idea-coach", input: "streamed hello" });
    const deltas: string[] = [];
    stream.on("response.output_text.delta", (event) => deltas.push(event.delta));
    const final = await stream.finalResponse();
    expect(final.output_text).toBe("echo: streamed hello");
    expect(deltas.join("")).toBe("echo: streamed hello");
    const retrieved = await alice.responses.retrieve(final.id);
    expect(retrieved).toMatchObject({ id: final.id, status: "completed", output_text: "echo: streamed hello", model: "idea-coach" });
  });
});

describe("responses.retrieve", () => {
  it("reads a stored response with its usage", async () => {
    const created = await alice.responses.create({ model: "idea-coach", input: "keep me" });
    const retrieved = await alice.responses.retrieve(created.id);
    expect(retrieved).toMatchObject({ id: created.id, object: "response", status: "completed", output_text: "echo: keep me", usage: created.usage });
  });

  it("answers 404 in OpenAI's shape to someone who may not read the chat, as for an id that does not exist (docs/security.md)", async () => {
    const created = await alice.responses.create({ model: "idea-coach", input: "alice's secret" });
    const bob = new OpenAI({ apiKey: bobToken, baseURL: `${system.url}/v1`, maxRetries: 0 });
    const strangers = await caught(bob.responses.retrieve(created.id));
    const missing = await caught(bob.responses.retrieve("resp_no-such-response"));
    expect(strangers).toBeInstanceOf(NotFoundError);
    expect(strangers).toMatchObject({ status: 404, code: "not_found", type: "invalid_request_error" });
    // the same answer but for the id it names
    const withoutId = (error: unknown) => (error as NotFoundError).message.replace(/"resp_[^"]*"/, "<id>");
    expect(withoutId(strangers)).toBe(withoutId(missing));
    expect((strangers as NotFoundError).error).toEqual({ message: expect.any(String), type: "invalid_request_error", param: null, code: "not_found" });
  });

  it("answers 404 to someone who names another user's response as previous_response_id, and runs no turn in that chat (docs/security.md)", async () => {
    const created = await alice.responses.create({ model: "idea-coach", input: "alice's plan" });
    const bob = new OpenAI({ apiKey: bobToken, baseURL: `${system.url}/v1`, maxRetries: 0 });
    const before = system.model.requests.length;
    const continued = await caught(bob.responses.create({ model: "idea-coach", input: "let me in", previous_response_id: created.id }));
    expect(continued).toBeInstanceOf(NotFoundError);
    expect(continued).toMatchObject({ status: 404, code: "not_found" });
    expect(system.model.requests.length).toBe(before);
  });

  it("keeps no response of store: false, and its chat goes on when the client sends the history again", async () => {
    const created = await alice.responses.create({ model: "idea-coach", input: "unstored one", store: false }).withResponse();
    expect(created.data).toMatchObject({ store: false });
    expect(await caught(alice.responses.retrieve(created.data.id))).toMatchObject({ status: 404 });
    const next = await alice.responses
      .create({
        model: "idea-coach",
        store: false,
        input: [
          { role: "user", content: "unstored one" },
          { role: "assistant", content: created.data.output_text },
          { role: "user", content: "unstored two" },
        ],
      })
      .withResponse();
    expect(next.response.headers.get("x-session-id")).toBe(created.response.headers.get("x-session-id"));
    expect(lastModelMessages("user")).toEqual(["unstored one", "unstored two"]);
  });
});

describe("the OpenAI Agents SDK in its default Responses setup", () => {
  const agent = new Agent({ name: "Idea coach", instructions: "You coach ideas.", model: "idea-coach" });

  it("runs an agent's turn and a follow-up with previous_response_id", async () => {
    const first = await run(agent, "agents first");
    expect(first.finalOutput).toBe("echo: agents first");
    expect(first.lastResponseId).toMatch(/^resp_/);
    const second = await run(agent, "agents second", { previousResponseId: first.lastResponseId });
    expect(second.finalOutput).toBe("echo: agents second");
    expect(lastModelMessages("user")).toEqual([expect.stringMatching(/You coach ideas\.[\s\S]*agents first$/), "agents second"]);
  });

  it("streams an agent's turn and a follow-up with previous_response_id", async () => {
    const first = await run(agent, "streamed first", { stream: true });
    let text = "";
    for await (const chunk of first.toTextStream()) text += chunk;
    await first.completed;
    expect(text).toBe("echo: streamed first");
    expect(first.finalOutput).toBe("echo: streamed first");
    const second = await run(agent, "streamed second", { stream: true, previousResponseId: first.lastResponseId });
    await second.completed;
    expect(second.finalOutput).toBe("echo: streamed second");
    expect(lastModelMessages("user")).toEqual([expect.stringMatching(/streamed first$/), "streamed second"]);
  });
});

async function configText(): Promise<string> {
  const { readFile } = await import("node:fs/promises");
  return readFile(new URL("../bmad/custom/bundles/idea-studio/config.yaml", import.meta.url), "utf8");
}
