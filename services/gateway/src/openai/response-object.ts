import type { StoredResponse, Usage } from "@agent-orchestrator/shared/wire";

/** The id of a response's one output message. */
export const outputMessageId = (record: Pick<StoredResponse, "run_id">): string => `msg_${record.run_id.replaceAll("-", "")}`;

/** The text part of the output message, as the Responses API shapes it. */
export const outputTextPart = (text: string) => ({ type: "output_text" as const, text, annotations: [], logprobs: [] });

/** The output message: the whole turn's answer, as `/v1/chat/completions` gives it, in one text part. */
export function outputMessage(record: StoredResponse, status: "in_progress" | "completed") {
  return {
    id: outputMessageId(record),
    type: "message" as const,
    status,
    role: "assistant" as const,
    content: status === "completed" ? [outputTextPart(record.output_text)] : [],
  };
}

/** Our usage in the Responses API's terms (its `prompt`/`completion` become `input`/`output`). */
export function responseUsage(usage: Usage) {
  return {
    input_tokens: usage.prompt_tokens,
    input_tokens_details: { cached_tokens: usage.cached_prompt_tokens ?? 0 },
    output_tokens: usage.completion_tokens,
    output_tokens_details: { reasoning_tokens: usage.reasoning_tokens ?? 0 },
    total_tokens: usage.total_tokens,
  };
}

/**
 * A `response` object (docs/openai-api.md "Responses"). Only a completed response has output; the agent's tools
 * are the server's, so `tools` is empty. `session_id` (the chat) and `response_truncated` (the stored answer was
 * cut; the whole is in the chat) are this server's extensions, as on chat completions.
 */
export function responseObject(record: StoredResponse, store: boolean) {
  return {
    id: record.id,
    object: "response" as const,
    created_at: record.created_at,
    status: record.status,
    error: record.error,
    incomplete_details: null,
    instructions: record.instructions,
    max_output_tokens: null,
    model: record.model,
    output: record.status === "completed" ? [outputMessage(record, "completed")] : [],
    parallel_tool_calls: false,
    previous_response_id: record.previous_response_id,
    reasoning: { effort: null, summary: null },
    store,
    temperature: null,
    text: { format: { type: "text" as const } },
    tool_choice: "auto" as const,
    tools: [],
    top_p: null,
    truncation: "disabled" as const,
    usage: record.usage ? responseUsage(record.usage) : null,
    metadata: {},
    session_id: record.session_id,
    response_truncated: record.response_truncated,
  };
}
