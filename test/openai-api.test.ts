/**
 * The OpenAI-compatible API (docs/openai-api.md) through the official `openai` client: agents as
 * models, completions streamed and not with a tool round on the server, errors in OpenAI's shape, and
 * a stateless client's history reaching the model exactly once. Real processes, a private nats-server,
 * the scripted model.
 */
import OpenAI, { AuthenticationError, NotFoundError } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lastMessage, type ChatRequestBody, type ScriptedTurn } from "@agent-orchestrator/testing/http-model";
import { endsWithDateNote, withoutSystemNote } from "@agent-orchestrator/testing/system-note";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";

const token = "alice-token-1111";
let system: TestSystem;
let client: OpenAI;

function respond(request: ChatRequestBody): ScriptedTurn {
  const last = lastMessage(request);
  if (last?.role === "tool") {
    const result = JSON.parse(String(last.content)) as { content?: string };
    return { text: `The file says:\n${result.content ?? ""}` };
  }
  const said = withoutSystemNote(String(last?.content ?? ""));
  if (said === "show me the config") {
    return { text: "Let me look.", toolCalls: [{ name: "read_file", arguments: { file_path: "{bundle-root}/config.yaml" } }] };
  }
  // the first message of a session that carried an older history: a short answer, so it repeats nothing
  if (said.endsWith("beta question")) return { text: "beta answer" };
  return { text: `echo: ${said}` };
}

beforeAll(async () => {
  system = await startTestSystem({ responder: respond, env: { AUTH_TOKENS: `alice:${token}`, HOST: "127.0.0.1" } });
  client = new OpenAI({ apiKey: token, baseURL: `${system.url}/v1`, maxRetries: 0 });
}, 60_000);

afterAll(() => system?.stop());

/** How many times a text is the content of a message the model received, or appears inside one. */
function occurrences(request: ChatRequestBody | undefined, text: string): number {
  return (request?.messages ?? []).reduce((count, message) => count + String(message.content ?? "").split(text).length - 1, 0);
}

describe("models", () => {
  it("lists the agents as models, and retrieves one by id", async () => {
    const models = [];
    for await (const model of client.models.list()) models.push(model);
    expect(models).toContainEqual(expect.objectContaining({ id: "idea-coach", object: "model", owned_by: "idea-studio" }));
    expect(await client.models.retrieve("idea-coach")).toMatchObject({ id: "idea-coach", object: "model" });
  });
});

describe("chat completions", () => {
  it("runs the agent's loop with a tool round on the server and answers a chat.completion", async () => {
    const { data: completion, response } = await client.chat.completions
      .create({ model: "idea-coach", messages: [{ role: "user", content: "show me the config" }] })
      .withResponse();
    expect(completion.object).toBe("chat.completion");
    expect(completion.model).toBe("idea-coach");
    expect(completion.choices[0]?.finish_reason).toBe("stop");
    expect(completion.choices[0]?.message.role).toBe("assistant");
    expect(completion.choices[0]?.message.content).toBe(`Let me look.\n\nThe file says:\n${await configText()}`);
    expect(completion.usage?.total_tokens).toBeGreaterThan(0);
    expect(response.headers.get("x-session-id")).toMatch(/^[\w-]+$/);
    const toolResults = system.model.requests.filter((request) => lastMessage(request.body)?.role === "tool");
    expect(toolResults.length).toBeGreaterThan(0);
  });

  it("streams chat.completion.chunks: the role first, content deltas, finish_reason, the usage chunk", async () => {
    const stream = await client.chat.completions.create({
      model: "idea-coach",
      messages: [{ role: "user", content: "show me the config" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.every((chunk) => chunk.object === "chat.completion.chunk" && chunk.model === "idea-coach")).toBe(true);
    expect(chunks[0]?.choices[0]?.delta.role).toBe("assistant");
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("");
    expect(text).toBe(`Let me look.\n\nThe file says:\n${await configText()}`);
    const finishes = chunks.map((chunk) => chunk.choices[0]?.finish_reason).filter((reason) => reason);
    expect(finishes).toEqual(["stop"]);
    const last = chunks.at(-1);
    expect(last?.choices).toEqual([]);
    expect(last?.usage?.total_tokens).toBeGreaterThan(0);
  });

  it("continues the session of a stateless client, so a three-message history reaches the model exactly once", async () => {
    const first = await client.chat.completions
      .create({ model: "idea-coach", messages: [{ role: "user", content: "my first question" }] })
      .withResponse();
    const answer = first.data.choices[0]?.message.content ?? "";
    expect(answer).toBe("echo: my first question");
    const second = await client.chat.completions
      .create({
        model: "idea-coach",
        messages: [
          { role: "user", content: "my first question" },
          { role: "assistant", content: answer },
          { role: "user", content: "my second question" },
        ],
      })
      .withResponse();
    expect(second.data.choices[0]?.message.content).toBe("echo: my second question");
    expect(second.response.headers.get("x-session-id")).toBe(first.response.headers.get("x-session-id"));
    const seen = system.model.requests.at(-1)?.body;
    expect(occurrences(seen, "my first question")).toBe(2); // the question, and the answer that echoes it
    expect(occurrences(seen, "echo: my first question")).toBe(1);
    expect(occurrences(seen, "my second question")).toBe(1);
    expect(seen?.messages.filter((message) => message.role === "user").map((message) => message.content)).toEqual([expect.stringMatching(endsWithDateNote("my first question")), "my second question"]);
  });

  it("carries a history no session holds, and the client's system message, into a new session once", async () => {
    const { response } = await client.chat.completions
      .create({
        model: "idea-coach",
        messages: [
          { role: "system", content: "Answer in haiku." },
          { role: "user", content: "alpha question" },
          { role: "assistant", content: "an answer given elsewhere" },
          { role: "user", content: "beta question" },
        ],
      })
      .withResponse();
    const seen = system.model.requests.at(-1)?.body;
    for (const text of ["Answer in haiku.", "alpha question", "an answer given elsewhere", "beta question"]) expect(occurrences(seen, text), text).toBe(1);
    const sessionId = response.headers.get("x-session-id");
    expect(sessionId).toBeTruthy();

    // the next request of the same client finds that session again
    const next = await client.chat.completions
      .create({
        model: "idea-coach",
        messages: [
          { role: "system", content: "Answer in haiku." },
          { role: "user", content: "alpha question" },
          { role: "assistant", content: "an answer given elsewhere" },
          { role: "user", content: "beta question" },
          { role: "assistant", content: "beta answer" },
          { role: "user", content: "gamma question" },
        ],
      })
      .withResponse();
    expect(next.response.headers.get("x-session-id")).toBe(sessionId);
    const again = system.model.requests.at(-1)?.body;
    for (const text of ["Answer in haiku.", "alpha question", "an answer given elsewhere", "beta question", "gamma question"]) {
      expect(occurrences(again, text), text).toBe(1);
    }
  });

  it("continues the session named by the x-session-id header with only the last message", async () => {
    const first = await client.chat.completions.create({ model: "idea-coach", messages: [{ role: "user", content: "named one" }] }).withResponse();
    const sessionId = first.response.headers.get("x-session-id") ?? "";
    const second = await client.chat.completions
      .create({ model: "idea-coach", messages: [{ role: "user", content: "named two" }] }, { headers: { "x-session-id": sessionId } })
      .withResponse();
    expect(second.response.headers.get("x-session-id")).toBe(sessionId);
    const seen = system.model.requests.at(-1)?.body;
    expect(seen?.messages.filter((message) => message.role === "user").map((message) => message.content)).toEqual([expect.stringMatching(endsWithDateNote("named one")), "named two"]);
  });
});

describe("errors in OpenAI's shape", () => {
  it("answers a wrong key with 401", async () => {
    const stranger = new OpenAI({ apiKey: "wrong-key-0000", baseURL: `${system.url}/v1`, maxRetries: 0 });
    const error = await stranger.models.list().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ status: 401, code: "invalid_api_key", type: "authentication_error" });
  });

  it("answers an unknown model with 404 model_not_found", async () => {
    const error = await client.chat.completions.create({ model: "no-such-agent", messages: [{ role: "user", content: "hi" }] }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ status: 404, code: "model_not_found", type: "invalid_request_error" });
  });

  it("answers an invalid body with 400 and the raw error body", async () => {
    for (const body of [{ model: "idea-coach", messages: [] }, { model: "idea-coach", messages: [{ role: "assistant", content: "no user" }] }, { model: "idea-coach", messages: [{ role: "tool", content: "x", tool_call_id: "1" }] }]) {
      const response = await fetch(`${system.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ error: { message: expect.any(String), type: "invalid_request_error", param: null, code: "validation_error" } });
    }
  });
});

async function configText(): Promise<string> {
  const { readFile } = await import("node:fs/promises");
  return readFile(new URL("../bmad/custom/bundles/idea-studio/config.yaml", import.meta.url), "utf8");
}
