import type OpenAI from "openai";
import type { ModelCaller, ModelRequest, ModelStreamPart } from "./model-caller.js";

/** The model behind the loop as an OpenAI-compatible chat-completions server, streamed with usage. */
export function openAiModel(client: OpenAI, model: string): ModelCaller {
  return {
    async *stream(request: ModelRequest): AsyncIterable<ModelStreamPart> {
      // each call gets its own signal: the openai client never removes the abort listener it adds, so a
      // long turn sharing the turn's signal would pile them up
      const call = new AbortController();
      const relayAbort = () => call.abort(request.signal.reason);
      if (request.signal.aborted) relayAbort();
      else request.signal.addEventListener("abort", relayAbort, { once: true });
      try {
        const stream = await client.chat.completions.create(
          { model, messages: request.messages, tools: request.tools, stream: true, stream_options: { include_usage: true } },
          { signal: call.signal, timeout: request.timeoutMs },
        );
        for await (const chunk of stream) {
          if (chunk.usage) {
            const { prompt_tokens, completion_tokens, total_tokens } = chunk.usage;
            yield { type: "usage", usage: { prompt_tokens, completion_tokens, total_tokens } };
          }
          const choice = chunk.choices[0];
          if (!choice) continue;
          if (choice.delta.content) yield { type: "text", text: choice.delta.content };
          if (choice.delta.tool_calls) yield { type: "tool-call-deltas", deltas: choice.delta.tool_calls };
          if (choice.finish_reason) yield { type: "finish", reason: choice.finish_reason };
        }
      } finally {
        request.signal.removeEventListener("abort", relayAbort);
      }
    },
  };
}
