/**
 * One answer through every door: a turn whose model spoke before a tool round and after it gives `/api/chat`,
 * SSE, the WebSocket, `/v1` and the MCP `chat` tool the text of its `done` event, and says so when that text was
 * cut to fit a NATS message. The orchestrator is played by FakeOrchestrator, so a cut answer needs no 1 MiB turn.
 */
import { once } from "node:events";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { beforeAll, describe, expect, it, onTestFinished } from "vitest";
import WebSocket from "ws";
import { zeroUsage, type RunEventBody } from "@agent-orchestrator/shared/wire";
import { readSse } from "@agent-orchestrator/testing/sse";
import { FakeFileStore } from "../testing/fake-file-store.js";
import { FakeOrchestrator } from "../testing/fake-orchestrator.js";
import { gatewayFixture, tokens } from "../testing/gateway-fixture.js";

const fixture = gatewayFixture();
const orchestrator = new FakeOrchestrator(fixture);
const store = new FakeFileStore(fixture);

const whole = { response: "Let me look.\n\nFound it.", response_truncated: false };
const cut = { response: "Let me look.\n\nFou", response_truncated: true };

beforeAll(() => {
  orchestrator.answer();
  store.answer();
  // the model speaks before its tool round and after it; a message "cut" gets a done event whose answer was cut
  // to fit, as bounded-event.ts cuts it
  orchestrator.turnEvents = (request): RunEventBody[] => [
    { type: "delta", text: "Let me look." },
    { type: "tool_call", call_id: "c1", name: "read_file", arguments: { file_path: "{project-root}/notes.md" } },
    { type: "tool_result", call_id: "c1", name: "read_file", success: true, duration_ms: 1 },
    { type: "delta", text: "Found it." },
    {
      type: "done",
      ...(request.message === "cut" ? cut : { response: whole.response }),
      iterations: 2,
      usage: zeroUsage(),
      usage_by_call: [zeroUsage(), zeroUsage()],
      session_usage: zeroUsage(),
    },
  ];
});

const post = (path: string, body: unknown, accept = "application/json") =>
  fixture.api("alice", path, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json", accept } });

async function mcpChat(message: string): Promise<{ text: string; structured: Record<string, unknown> }> {
  const client = new Client({ name: "turn-answer-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${fixture.url()}/mcp`), { requestInit: { headers: { authorization: `Bearer ${tokens.alice}` } } }));
  onTestFinished(() => client.close());
  const result = await client.callTool({ name: "chat", arguments: { agent_id: "a", message } });
  const text = (result.content as Array<{ text?: string }>).map((part) => part.text ?? "").join("");
  return { text, structured: result.structuredContent as Record<string, unknown> };
}

async function socketDone(message: string): Promise<Record<string, unknown>> {
  const socket = new WebSocket(`${fixture.url().replace("http", "ws")}/ws`, { headers: { authorization: `Bearer ${tokens.alice}` } });
  onTestFinished(() => socket.close());
  await once(socket, "open");
  const done = new Promise<Record<string, unknown>>((resolve) => {
    socket.on("message", (data) => {
      const event = JSON.parse(String(data)) as Record<string, unknown>;
      if (event["type"] === "done") resolve(event);
    });
  });
  socket.send(JSON.stringify({ type: "chat", agent_id: "a", message }));
  return done;
}

describe.each([
  { turn: "a whole answer", message: "whole", answer: whole },
  { turn: "an answer cut to fit a NATS message", message: "cut", answer: cut },
])("$turn of two model calls", ({ message, answer }) => {
  it("POST /api/chat answers JSON with the done event's text and flag", async () => {
    const response = await post("/api/chat", { agent_id: "a", message });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ success: true, ...answer });
  });

  it("SSE and the WebSocket end with that done event", async () => {
    const events = await readSse(await post("/api/chat", { agent_id: "a", message }, "text/event-stream"));
    const flag = answer.response_truncated ? { response_truncated: true } : {};
    expect(events.at(-1)).toMatchObject({ event: "done", data: { response: answer.response, ...flag } });
    const done = await socketDone(message);
    expect(done).toMatchObject({ response: answer.response, ...flag });
    expect(done["response_truncated"] === true).toBe(answer.response_truncated);
  });

  it("/v1 answers a chat.completion whose content is that text, with the flag as an extension", async () => {
    const response = await post("/v1/chat/completions", { model: "a", messages: [{ role: "user", content: message }] });
    expect(response.status).toBe(200);
    const completion = (await response.json()) as { choices: Array<{ message: { content: string } }>; response_truncated: boolean };
    expect(completion.choices[0]?.message.content).toBe(answer.response);
    expect(completion.response_truncated).toBe(answer.response_truncated);
  });

  it("the MCP chat tool answers that text and flag, and a cut answer says so in its text", async () => {
    const { text, structured } = await mcpChat(message);
    expect(structured).toMatchObject({ success: true, ...answer });
    expect(text.startsWith(`${answer.response}\n\n---\n`)).toBe(true);
    expect(text.includes("response_truncated: true")).toBe(answer.response_truncated);
  });
});

describe("a streamed /v1 answer", () => {
  it("streams the same text as the done event's, a paragraph break where the tool round was", async () => {
    const response = await post("/v1/chat/completions", { model: "a", stream: true, messages: [{ role: "user", content: "whole" }] });
    const chunks = (await response.text())
      .split("\n\n")
      .filter((block) => block.startsWith("data: {"))
      .map((block) => JSON.parse(block.slice("data: ".length)) as { choices: Array<{ delta: { content?: string } }> });
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("")).toBe(whole.response);
  });
});
