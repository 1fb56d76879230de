/**
 * One answer through every door: a turn whose model speaks, calls a tool, and speaks again answers with the text
 * of both model calls on `done` (SSE, WebSocket), as JSON from POST /api/chat, from `/v1` whole and streamed, and
 * from the MCP `chat` tool, each the same text and none of them cut. Real processes, a private nats-server, the
 * scripted model. (A cut answer, over a NATS message, is tested per door in services/gateway/src/chat/turn-answer.test.ts.)
 */
import { once } from "node:events";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import WebSocket from "ws";
import { lastMessage, type ChatRequestBody, type ScriptedTurn } from "@agent-orchestrator/testing/http-model";
import { readSse } from "@agent-orchestrator/testing/sse";
import { recordMessages } from "@agent-orchestrator/testing/socket-messages";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";

const token = "alice-token-1111";
let system: TestSystem;

function respond(request: ChatRequestBody): ScriptedTurn {
  if (lastMessage(request)?.role === "tool") return { text: "Found it." };
  return { text: "Let me look.", toolCalls: [{ name: "read_file", arguments: { file_path: "{bundle-root}/config.yaml" } }] };
}

/** what each door must answer: both model calls' text, a paragraph break where the tool round was */
const answer = "Let me look.\n\nFound it.";
const message = { agent_id: "idea-coach", message: "what does the config say?" };

beforeAll(async () => {
  system = await startTestSystem({ responder: respond, env: { AUTH_TOKENS: `alice:${token}`, HOST: "127.0.0.1" } });
}, 60_000);

afterAll(() => system?.stop());

const chat = (accept: string) =>
  fetch(`${system.url}/api/chat`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept }, body: JSON.stringify(message) });

describe("a turn of two model calls with text in both", () => {
  it("POST /api/chat answers JSON with both calls' text", async () => {
    const body = (await (await chat("application/json")).json()) as Record<string, unknown>;
    expect(body).toMatchObject({ success: true, response: answer, response_truncated: false, iterations: 2 });
  });

  it("SSE ends with a done event that carries it", async () => {
    const events = await readSse(await chat("text/event-stream"));
    expect(events.at(-1)).toMatchObject({ event: "done", data: { response: answer, iterations: 2 } });
    expect(events.at(-1)?.data["response_truncated"]).toBeUndefined();
  });

  it("the WebSocket ends with a done event that carries it", async () => {
    const socket = new WebSocket(`${system.url.replace("http", "ws")}/ws`, { headers: { origin: system.url, authorization: `Bearer ${token}` } });
    onTestFinished(() => socket.close());
    const events = recordMessages(socket);
    await once(socket, "open");
    socket.send(JSON.stringify({ type: "chat", ...message }));
    expect(await events.next((event) => event["type"] === "done" || event["type"] === "error")).toMatchObject({ type: "done", response: answer });
  });

  it("/v1 answers it as the completion's content, and streams the same text", async () => {
    const client = new OpenAI({ apiKey: token, baseURL: `${system.url}/v1`, maxRetries: 0 });
    const messages = [{ role: "user" as const, content: message.message }];
    const completion = await client.chat.completions.create({ model: message.agent_id, messages });
    expect(completion.choices[0]?.message.content).toBe(answer);
    expect(completion).toMatchObject({ response_truncated: false });
    const stream = await client.chat.completions.create({ model: message.agent_id, messages, stream: true });
    let streamed = "";
    for await (const chunk of stream) streamed += chunk.choices[0]?.delta.content ?? "";
    expect(streamed).toBe(answer);
  });

  it("the MCP chat tool answers it", async () => {
    const client = new Client({ name: "one-answer-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${system.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    onTestFinished(() => client.close());
    const result = await client.callTool({ name: "chat", arguments: message });
    expect(result.structuredContent).toMatchObject({ success: true, response: answer, response_truncated: false });
    const text = (result.content as Array<{ text?: string }>).map((part) => part.text ?? "").join("");
    expect(text.startsWith(`${answer}\n\n---\n`)).toBe(true);
  });
});
