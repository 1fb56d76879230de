/**
 * Test support: the scripted model in memory, behind the loop's model seam (`ModelCaller`): no HTTP, no NATS.
 * (Its sibling over HTTP, `startHttpModel` of `@agent-orchestrator/testing/http-model`, is an OpenAI-compatible
 * server the services reach through the real `openai` client.) Each call takes
 * the next scripted answer, or asks a function; every request is recorded. It plays the stream exactly as
 * the openai adapter yields it (text deltas, tool-call fragments, usage, finish reason), so a loop rule can
 * be tested without HTTP, NATS or timers.
 */
import type { Usage } from "@agent-orchestrator/shared/wire";
import type { ModelCaller, ModelRequest, ModelStreamPart } from "../loop/model-caller.js";

/** A tool call the in-memory model makes; object arguments are sent as JSON, strings as they are. */
export interface InMemoryToolCall {
  id?: string;
  name: string;
  arguments: string | Record<string, unknown>;
}

/** One scripted answer. */
export interface InMemoryAnswer {
  /** sent as two text deltas, so streaming is exercised */
  text?: string;
  toolCalls?: InMemoryToolCall[];
  /** default: `tool_calls` when there are calls, else `stop` */
  finishReason?: string;
  usage?: Usage;
  /** thrown after the text was streamed (a broken stream) */
  failAfterText?: unknown;
  /** thrown before anything is streamed (the model server refused) */
  fail?: unknown;
  /** the answer never comes: the stream waits until the request's signal aborts */
  hang?: boolean;
}

export type InMemoryScript = InMemoryAnswer[] | ((request: ModelRequest, callIndex: number) => InMemoryAnswer);

/** The scripted model in memory: answers each call from its script and records every request. */
export class InMemoryModel implements ModelCaller {
  readonly requests: ModelRequest[] = [];
  private readonly script: InMemoryScript;

  constructor(script: InMemoryScript) {
    this.script = typeof script === "function" ? script : [...script];
  }

  /** The tool results the model was shown in its latest call, parsed. */
  lastToolMessages(): Array<{ tool_call_id: string; content: string }> {
    const messages = this.requests.at(-1)?.messages ?? [];
    return messages.flatMap((message) => (message.role === "tool" ? [{ tool_call_id: message.tool_call_id, content: String(message.content) }] : []));
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelStreamPart> {
    // the loop may change its array after the call; keep what this call was given
    this.requests.push({ ...request, messages: [...request.messages] });
    const answer = this.nextAnswer(request);
    if (answer.fail !== undefined) throw answer.fail;
    if (answer.hang) {
      await new Promise((_resolve, reject) => {
        const stop = () => reject(request.signal.reason as Error);
        if (request.signal.aborted) stop();
        else request.signal.addEventListener("abort", stop, { once: true });
      });
    }
    const text = answer.text ?? "";
    const half = Math.ceil(text.length / 2);
    for (const piece of [text.slice(0, half), text.slice(half)]) if (piece) yield { type: "text", text: piece };
    if (answer.failAfterText !== undefined) throw answer.failAfterText;
    const calls = answer.toolCalls ?? [];
    for (const [index, call] of calls.entries()) {
      const json = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
      const id = call.id ?? `call_${this.requests.length}_${index}`;
      // the first fragment carries id and name, the arguments follow in two pieces (as OpenAI streams them)
      yield { type: "tool-call-deltas", deltas: [{ index, id, function: { name: call.name, arguments: "" } }] };
      yield { type: "tool-call-deltas", deltas: [{ index, function: { arguments: json.slice(0, 5) } }] };
      yield { type: "tool-call-deltas", deltas: [{ index, function: { arguments: json.slice(5) } }] };
    }
    yield { type: "finish", reason: answer.finishReason ?? (calls.length > 0 ? "tool_calls" : "stop") };
    yield { type: "usage", usage: answer.usage ?? { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 } };
  }

  private nextAnswer(request: ModelRequest): InMemoryAnswer {
    if (typeof this.script === "function") return this.script(request, this.requests.length - 1);
    const answer = this.script.shift();
    if (!answer) throw new Error(`the in-memory model has no answer scripted for call ${this.requests.length}`);
    return answer;
  }
}
