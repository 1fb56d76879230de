import type OpenAI from "openai";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { costOf, type ModelPrice, type Usage } from "@agent-orchestrator/shared/wire";
import type { ModelCaller, ModelRequest, ModelStreamPart } from "../loop/model-caller.js";
import { ModelCallTelemetry } from "./model-call-telemetry.js";
import { toModelError } from "../loop/model-error.js";
import { withSilenceStop } from "./silence-limited-fetch.js";

/** The reason a call the loop stopped reading is aborted with: given, so no DOMException (a stack trace) is made for it. */
const callOver = new AppError("CANCELLED", "The model call is over");

/** What a route sends with every call besides the conversation (docs/models.md "Routes"). */
export interface ModelParameters {
  temperature?: number;
  /** OpenAI's own API takes `max_completion_tokens` (its reasoning models refuse `max_tokens`); compatible servers (Ollama, llama.cpp, vLLM) read `max_tokens` */
  maxOutputTokens?: { field: "max_completion_tokens" | "max_tokens"; tokens: number };
  reasoningEffort?: NonNullable<OpenAI.Chat.ChatCompletionCreateParams["reasoning_effort"]>;
}

/** One model route as the loop calls it. */
export interface OpenAiRoute {
  /** the route's client, built once, with the route's HTTP stack (its fetch ends a call as the call's init says: silence-limited-fetch.ts) */
  client: OpenAI;
  model: string;
  parameters: ModelParameters;
  /** each call's usage carries its cost at this price; without it, no cost */
  price?: ModelPrice;
}

/**
 * The model behind the loop as an OpenAI-compatible chat-completions server, streamed with usage. Each call
 * is one span and its metrics (model-call-telemetry.ts); a failure is classified here for them, and the loop
 * gets the same classified error. Each call hands the route's fetch its own stop, so the silence limits
 * stop that call alone and as the caller would (an abort the openai client does not retry).
 */
export function openAiModel(route: OpenAiRoute): ModelCaller {
  const { model, parameters } = route;
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
      let readToItsEnd = false;
      try {
        const stream = await route.client.chat.completions.create(
          {
            model,
            messages: request.messages,
            // a call without tools (a hand-off summary) sends none: OpenAI's API refuses an empty list
            ...(request.tools.length > 0 ? { tools: request.tools } : {}),
            stream: true,
            stream_options: { include_usage: true },
            ...(parameters.temperature !== undefined ? { temperature: parameters.temperature } : {}),
            ...(parameters.maxOutputTokens ? { [parameters.maxOutputTokens.field]: parameters.maxOutputTokens.tokens } : {}),
            ...(parameters.reasoningEffort ? { reasoning_effort: parameters.reasoningEffort } : {}),
          },
          // the silence limits stop this call alone, as its caller would
          { signal: call.signal, fetchOptions: withSilenceStop((error) => call.abort(error)) as OpenAI.RequestOptions["fetchOptions"] },
        );
        for await (const chunk of stream) {
          telemetry.chunk(chunk);
          if (chunk.usage) {
            const { prompt_tokens, completion_tokens, total_tokens, prompt_tokens_details, completion_tokens_details } = chunk.usage;
            usage = { prompt_tokens, completion_tokens, total_tokens };
            // the part of the prompt the provider's cache served, priced as such
            const cached = prompt_tokens_details?.cached_tokens;
            if (typeof cached === "number" && cached > 0) usage.cached_prompt_tokens = Math.min(cached, prompt_tokens);
            const reasoning = completion_tokens_details?.reasoning_tokens;
            if (typeof reasoning === "number" && reasoning > 0) usage.reasoning_tokens = Math.min(reasoning, completion_tokens);
            if (route.price) usage.cost = costOf(usage, route.price);
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
        // the openai client ends a stream aborted under it as if it had ended: a silence limit or a cancel is an error here
        call.signal.throwIfAborted();
        readToItsEnd = true;
      } catch (error) {
        // the call's own signal: a turn's cancel or deadline is relayed to it, and a silence limit aborts it alone
        throw telemetry.failed(toModelError(error, { textStreamed, signal: call.signal }));
      } finally {
        // a loop that stops reading (an answer past its size limit) ends the HTTP request here, not at its timeout; a
        // call read to its end has nothing left to stop (aborting it anyway costs the openai client's own abort)
        if (!readToItsEnd) call.abort(callOver);
        request.signal.removeEventListener("abort", relayAbort);
        telemetry.end(usage, finishReason);
      }
    },
  };
}
