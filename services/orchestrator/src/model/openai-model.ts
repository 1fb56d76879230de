import type OpenAI from "openai";
import type { Usage } from "@agent-orchestrator/shared";
import type { ModelCaller, ModelRequest, ModelStreamPart } from "../loop/model-caller.js";
import { ModelCallTelemetry } from "./model-call-telemetry.js";
import { toModelError } from "./model-error.js";

/**
 * The model behind the loop as an OpenAI-compatible chat-completions server, streamed with usage. Each call
 * is one span and its metrics (model-call-telemetry.ts); a failure is classified here for them, and the loop
 * gets the same classified error.
 */
export function openAiModel(client: OpenAI, model: string): ModelCaller {
  return {
    async *stream(request: ModelRequest): AsyncIterable<ModelStreamPart> {
      // each call gets its own signal: the openai client never removes the abort listener it adds, so a
      // long turn sharing the turn's signal would pile them up
      const call = new AbortController();
      const relayAbort = () => call.abort(request.signal.reason);
      if (request.signal.aborted) relayAbort();
      else request.signal.addEventListener("abort", relayAbort, { once: true });
      const telemetry = new ModelCallTelemetry(model);
      let usage: Usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
      let finishReason: string | null = null;
      let textStreamed = false;
      try {
        const stream = await client.chat.completions.create(
          { model, messages: request.messages, tools: request.tools, stream: true, stream_options: { include_usage: true } },
          { signal: call.signal, timeout: request.timeoutMs },
        );
        for await (const chunk of stream) {
          telemetry.chunk(chunk);
          if (chunk.usage) {
            const { prompt_tokens, completion_tokens, total_tokens } = chunk.usage;
            usage = { prompt_tokens, completion_tokens, total_tokens };
            yield { type: "usage", usage };
          }
          const choice = chunk.choices[0];
          if (!choice) continue;
          if (choice.delta.content) {
            textStreamed = true;
            yield { type: "text", text: choice.delta.content };
          }
          if (choice.delta.tool_calls) yield { type: "tool-call-deltas", deltas: choice.delta.tool_calls };
          if (choice.finish_reason) {
            finishReason = choice.finish_reason;
            yield { type: "finish", reason: choice.finish_reason };
          }
        }
      } catch (error) {
        throw telemetry.failed(toModelError(error, { textStreamed, signal: request.signal }));
      } finally {
        // a loop that stops reading (an answer past its size limit) ends the HTTP request here, not at its timeout
        call.abort();
        request.signal.removeEventListener("abort", relayAbort);
        telemetry.end(usage, finishReason);
      }
    },
  };
}
