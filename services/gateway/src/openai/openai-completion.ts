import type { Usage } from "@agent-orchestrator/shared/wire";
import type { TurnAnswer } from "../chat/turn-answer.js";

/** What every object of one completion shares. */
export interface CompletionMeta {
  id: string;
  created: number;
  model: string;
}

/**
 * A non-streamed `chat.completion` whose content is the turn's answer. `session_id` (also in the `x-session-id`
 * header) and `response_truncated` (the answer was cut to fit one NATS message) are this server's extensions.
 */
export function completionObject(meta: CompletionMeta, answer: TurnAnswer, usage: Usage, sessionId: string) {
  return {
    id: meta.id,
    object: "chat.completion",
    created: meta.created,
    model: meta.model,
    choices: [{ index: 0, message: { role: "assistant", content: answer.response, refusal: null }, logprobs: null, finish_reason: "stop" }],
    usage,
    session_id: sessionId,
    response_truncated: answer.response_truncated,
  };
}

/**
 * One `chat.completion.chunk`. With `include_usage` every chunk carries `usage: null` and the last one,
 * with no choices, the usage (as OpenAI streams it).
 */
export function completionChunk(meta: CompletionMeta, delta: Record<string, unknown>, finishReason: "stop" | null, includeUsage: boolean) {
  return {
    id: meta.id,
    object: "chat.completion.chunk",
    created: meta.created,
    model: meta.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...(includeUsage ? { usage: null } : {}),
  };
}

export function usageChunk(meta: CompletionMeta, usage: Usage) {
  return { id: meta.id, object: "chat.completion.chunk", created: meta.created, model: meta.model, choices: [], usage };
}

export const sseData = (value: unknown): string => `data: ${JSON.stringify(value)}\n\n`;
