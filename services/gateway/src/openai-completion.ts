import type { Usage } from "@agent-orchestrator/shared";

/** What every object of one completion shares. */
export interface CompletionMeta {
  id: string;
  created: number;
  model: string;
}

/** A non-streamed `chat.completion`; `session_id` is this server's extension (also in the `x-session-id` header). */
export function completionObject(meta: CompletionMeta, content: string, usage: Usage, sessionId: string) {
  return {
    id: meta.id,
    object: "chat.completion",
    created: meta.created,
    model: meta.model,
    choices: [{ index: 0, message: { role: "assistant", content, refusal: null }, logprobs: null, finish_reason: "stop" }],
    usage,
    session_id: sessionId,
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
