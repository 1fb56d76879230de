/**
 * The scripted model over HTTP: an OpenAI-compatible chat-completions server for tests, benches and demos, which the
 * services reach through the real `openai` client. (Its sibling in memory, the orchestrator's `InMemoryModel`,
 * stands behind the loop's model seam with no HTTP at all.) It speaks the real wire
 * format (as a real streamed OpenAI response has it): streamed text deltas, tool-call deltas split across chunks (id, type and name
 * only in the first fragment, arguments concatenated), `finish_reason`, the usage chunk when
 * `stream_options.include_usage` is set, and `data: [DONE]`. Turns come from a FIFO script or a responder
 * function; every request is recorded; errors and delays can be injected. With a context window it refuses a
 * request larger than the window as OpenAI does (400, `code: "context_length_exceeded"`), counting four characters
 * a token. Never the system's default model.
 */
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

export interface ScriptedToolCall {
  name: string;
  /** an object is JSON-encoded; a string is sent as is (so invalid JSON can be scripted) */
  arguments: Record<string, unknown> | string;
  id?: string;
}

export interface ScriptedTurn {
  text?: string;
  /** a long answer made while it is sent: `piece` as `times` text chunks, never held whole (after `text`, if any) */
  streamedText?: { piece: string; times: number };
  toolCalls?: ScriptedToolCall[];
  /** send a non-2xx status with this JSON error body instead of a completion */
  status?: number;
  /** the error body's `code` with `status` (e.g. `context_length_exceeded`, as OpenAI names a prompt past the window) */
  errorCode?: string;
  headers?: Record<string, string>;
  /** wait before answering (the model's "thinking" time) */
  delayMs?: number;
  /** wait between streamed chunks */
  chunkDelayMs?: number;
  /**
   * produce the output (text, tool names and arguments) no faster than this, at four characters a token (the
   * rule of the usage it reports): each streamed chunk is sent when its share of the output is due, an answer
   * not streamed when all of it is; a real model's generation speed, for measures where output is the cost
   */
  outputTokensPerSecond?: number;
  /** close the connection after this many streamed chunks */
  dropAfterChunks?: number;
  finishReason?: "stop" | "tool_calls" | "length" | "content_filter";
  /**
   * the usage to report instead of the estimate, `cached_tokens` as `prompt_tokens_details.cached_tokens` (a provider's
   * prompt cache), `reasoning_tokens` as `completion_tokens_details.reasoning_tokens` (a reasoning model's thinking)
   */
  usage?: { prompt_tokens: number; completion_tokens: number; cached_tokens?: number; reasoning_tokens?: number };
}

export interface RecordedRequest {
  body: ChatRequestBody;
  headers: IncomingMessage["headers"];
  /** how the exchange ended: the whole answer sent, or the client gone first (a cancelled call) */
  ended: Promise<"answered" | "abandoned">;
  /** bytes of the streamed answer handed to the operating system so far: what the client could have read */
  sentBytes: number;
  /** the prompt's tokens as the server counts them against its window: messages and tools, four characters a token */
  promptTokens: number;
  /** set when the server refused the request as longer than its window */
  refused?: "context_length_exceeded";
}

export interface ChatRequestBody {
  model: string;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  messages: Array<{ role: string; content?: unknown; tool_calls?: unknown; tool_call_id?: string }>;
  tools?: Array<{ type: string; function: { name: string } }>;
  [key: string]: unknown;
}

export type Responder = (request: ChatRequestBody) => ScriptedTurn | Promise<ScriptedTurn>;

/** A running scripted model over HTTP: its URL, what it was asked, and the script it answers from. */
export interface HttpModel {
  /** base URL for the openai client, ending in /v1 */
  url: string;
  requests: RecordedRequest[];
  /** queue turns answered in order, before the responder is asked */
  enqueue(...turns: ScriptedTurn[]): void;
  setResponder(responder: Responder): void;
  /** the window in tokens the server refuses requests past (prompt and requested answer); undefined: none */
  setContextWindow(tokens: number | undefined): void;
  close(): Promise<void>;
}

const fallbackResponder: Responder = () => ({ text: "The scripted model has no turn scripted for this request." });

export async function startHttpModel(options: { port?: number; host?: string; responder?: Responder; contextWindow?: number } = {}): Promise<HttpModel> {
  const queue: ScriptedTurn[] = [];
  const requests: RecordedRequest[] = [];
  let responder = options.responder ?? fallbackResponder;
  let contextWindow = options.contextWindow;
  let callCounter = 0;
  const sockets = new Set<import("node:net").Socket>();

  const server: Server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { message: String(error), type: "server_error" } }));
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (request.method === "GET" && request.url?.endsWith("/models")) {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ object: "list", data: [{ id: "scripted", object: "model", owned_by: "tests" }] }));
      return;
    }
    if (request.method !== "POST" || !request.url?.endsWith("/chat/completions")) {
      response.writeHead(404, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { message: "not found", type: "invalid_request_error" } }));
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as ChatRequestBody;
    const ended = new Promise<"answered" | "abandoned">((resolve) => response.once("close", () => resolve(response.writableFinished ? "answered" : "abandoned")));
    const promptTokens = countPromptTokens(body);
    const recorded: RecordedRequest = { body, headers: request.headers, ended, sentBytes: 0, promptTokens };
    requests.push(recorded);
    const requested = promptTokens + requestedAnswerTokens(body);
    if (contextWindow !== undefined && requested > contextWindow) {
      recorded.refused = "context_length_exceeded";
      response.writeHead(400, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: contextLengthError(contextWindow, promptTokens, requested - promptTokens) }));
      return;
    }
    const turn = queue.shift() ?? (await responder(body));
    if (turn.delayMs) await sleep(turn.delayMs);

    if (turn.status && turn.status >= 300) {
      response.writeHead(turn.status, { "content-type": "application/json", ...turn.headers });
      const error =
        turn.errorCode === "context_length_exceeded"
          ? contextLengthError(contextWindow ?? promptTokens, promptTokens, 0)
          : { message: `scripted ${turn.status}`, type: "scripted_error", code: turn.errorCode ?? null };
      response.end(JSON.stringify({ error }));
      return;
    }
    const id = `chatcmpl-${++callCounter}`;
    const toolCalls = (turn.toolCalls ?? []).map((call, index) => ({
      id: call.id ?? `call_${callCounter}_${index}`,
      name: call.name,
      arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
    }));
    const text = turn.text ?? (toolCalls.length ? null : "");
    const finishReason = turn.finishReason ?? (toolCalls.length ? "tool_calls" : "stop");
    const usage = turn.usage ? reportedUsage(turn.usage) : estimateUsage(body, text ?? "", toolCalls);

    if (!body.stream) {
      if (turn.outputTokensPerSecond) await sleep((usage.completion_tokens / turn.outputTokensPerSecond) * 1000);
      response.writeHead(200, { "content-type": "application/json", ...turn.headers });
      response.end(
        JSON.stringify({
          id,
          object: "chat.completion",
          created: Math.floor(Date.now() / 1000),
          model: body.model,
          choices: [
            {
              index: 0,
              message: {
                role: "assistant",
                content: text,
                refusal: null,
                ...(toolCalls.length
                  ? { tool_calls: toolCalls.map((call) => ({ id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } })) }
                  : {}),
              },
              logprobs: null,
              finish_reason: finishReason,
            },
          ],
          usage,
        }),
      );
      return;
    }

    response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", ...turn.headers });
    const includeUsage = body.stream_options?.include_usage === true;
    const frames = streamFrames(id, body.model, text, toolCalls, finishReason, includeUsage ? usage : undefined, turn.streamedText);
    let sent = 0;
    const started = performance.now();
    let outputChars = 0;
    for (const [frame, frameChars] of frames) {
      if (turn.dropAfterChunks !== undefined && sent >= turn.dropAfterChunks) {
        // let what was written reach the client first, so it sees a stream that stops, not a refused request
        await sleep(20);
        response.socket?.destroy();
        return;
      }
      if (response.destroyed) return;
      outputChars += frameChars;
      const dueIn = turn.outputTokensPerSecond ? started + (outputChars / 4 / turn.outputTokensPerSecond) * 1000 - performance.now() : 0;
      if (dueIn > 0) await sleep(dueIn);
      const data = `data: ${frame}\n\n`;
      await new Promise<void>((resolve) =>
        response.write(data, (error) => {
          if (!error) recorded.sentBytes += Buffer.byteLength(data);
          resolve();
        }),
      );
      sent++;
      if (turn.chunkDelayMs) await sleep(turn.chunkDelayMs);
    }
    response.end();
  }

  server.listen(options.port ?? 0, options.host ?? "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    enqueue: (...turns) => queue.push(...turns),
    setResponder: (next) => {
      responder = next;
    },
    setContextWindow: (tokens) => {
      contextWindow = tokens;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface WireToolCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * The `data:` payloads of one streamed completion, in order, ending with [DONE], each with the characters of
 * output it carries (text, a tool's name, arguments); made as they are sent.
 */
function* streamFrames(
  id: string,
  model: string,
  text: string | null,
  toolCalls: WireToolCall[],
  finishReason: string,
  usage: WireUsage | undefined,
  streamedText: ScriptedTurn["streamedText"],
): Generator<[frame: string, outputChars: number]> {
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    JSON.stringify({
      id,
      object: "chat.completion.chunk",
      created,
      model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...(usage ? { usage: null } : {}),
    });
  if (toolCalls.length === 0) {
    yield [chunk({ role: "assistant", content: "" }), 0];
    for (const piece of splitIntoPieces(text ?? "", 3)) yield [chunk({ content: piece }), piece.length];
    for (let index = 0; index < (streamedText?.times ?? 0); index++) yield [chunk({ content: streamedText?.piece }), streamedText?.piece.length ?? 0];
  } else {
    yield [chunk({ role: "assistant", content: text ?? null }), text?.length ?? 0];
    for (const [index, call] of toolCalls.entries()) {
      yield [chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }), call.name.length];
      for (const piece of splitIntoPieces(call.arguments, 4)) yield [chunk({ tool_calls: [{ index, function: { arguments: piece } }] }), piece.length];
    }
  }
  yield [chunk({}, finishReason), 0];
  if (usage) yield [JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [], usage }), 0];
  yield ["[DONE]", 0];
}

/** Splits text into about `count` pieces on code-point boundaries, so multi-byte characters survive. */
function splitIntoPieces(text: string, count: number): string[] {
  const characters = Array.from(text);
  if (characters.length === 0) return [];
  const size = Math.max(1, Math.ceil(characters.length / count));
  const pieces: string[] = [];
  for (let start = 0; start < characters.length; start += size) pieces.push(characters.slice(start, start + size).join(""));
  return pieces;
}

interface WireUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens: number };
  completion_tokens_details?: { reasoning_tokens: number };
}

function reportedUsage(usage: NonNullable<ScriptedTurn["usage"]>): WireUsage {
  const { prompt_tokens, completion_tokens, cached_tokens, reasoning_tokens } = usage;
  return {
    prompt_tokens,
    completion_tokens,
    total_tokens: prompt_tokens + completion_tokens,
    ...(cached_tokens === undefined ? {} : { prompt_tokens_details: { cached_tokens } }),
    ...(reasoning_tokens === undefined ? {} : { completion_tokens_details: { reasoning_tokens } }),
  };
}

/** A stable stand-in for token counts: about four characters a token. */
function estimateUsage(body: ChatRequestBody, text: string, toolCalls: WireToolCall[]): WireUsage {
  const prompt_tokens = Math.ceil(JSON.stringify(body.messages).length / 4);
  const completion_tokens = Math.ceil((text.length + toolCalls.reduce((sum, call) => sum + call.arguments.length + call.name.length, 0)) / 4);
  return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };
}

/** A request's prompt as a server counts it against its window: its messages and tool definitions, four characters a token. */
export function countPromptTokens(body: ChatRequestBody): number {
  return Math.ceil(JSON.stringify(body.messages).length / 4) + Math.ceil(JSON.stringify(body.tools ?? []).length / 4);
}

/** The answer's tokens a request asks room for (`max_tokens` or `max_completion_tokens`), which a window must hold too. */
const requestedAnswerTokens = (body: ChatRequestBody): number => {
  const asked = body["max_completion_tokens"] ?? body["max_tokens"];
  return typeof asked === "number" ? asked : 0;
};

/** OpenAI's error for a request longer than the window, word for word as its API sends it. */
function contextLengthError(window: number, promptTokens: number, answerTokens: number) {
  const asked = answerTokens > 0 ? `you requested ${promptTokens + answerTokens} tokens (${promptTokens} in the messages, ${answerTokens} in the completion)` : `your messages resulted in ${promptTokens} tokens`;
  return {
    message: `This model's maximum context length is ${window} tokens. However, ${asked}. Please reduce the length of the messages.`,
    type: "invalid_request_error",
    param: "messages",
    code: "context_length_exceeded",
  };
}

/** The last message of a request, and the tool results since the last assistant message. */
export function lastMessage(request: ChatRequestBody) {
  return request.messages[request.messages.length - 1];
}
