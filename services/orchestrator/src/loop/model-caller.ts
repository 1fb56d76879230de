import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { toolDefinitionsForModel, Usage } from "@agent-orchestrator/shared/wire";
import type { ToolCallDelta } from "./tool-call-accumulator.js";

/** One piece of a streamed model answer, in the order the model sends them. */
export type ModelStreamPart =
  | { type: "text"; text: string }
  | { type: "tool-call-deltas"; deltas: readonly ToolCallDelta[] }
  | { type: "usage"; usage: Usage }
  | { type: "finish"; reason: string };

/** One model call: the conversation so far and the tools offered (as function definitions). */
export interface ModelRequest {
  messages: ChatCompletionMessageParam[];
  tools: ReturnType<typeof toolDefinitionsForModel>;
  signal: AbortSignal;
}

/**
 * "Call the model", the loop's seam to the model: a stream of text deltas, tool-call fragments, usage and
 * the finish reason. The orchestrator passes the openai client (`openAiModel`); tests pass the scripted model in
 * memory (`testing/in-memory-model.ts`), so every rule of the loop is tested without HTTP or NATS. A failure is thrown
 * from the iteration; the loop classifies it (`toModelError`).
 */
export interface ModelCaller {
  stream(request: ModelRequest): AsyncIterable<ModelStreamPart>;
}
