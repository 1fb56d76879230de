import { toErrorBody } from "@agent-orchestrator/shared/runtime";
import type { ConversationMessage } from "@agent-orchestrator/shared/wire";

/**
 * The conversation with every tool call answered: a resumed turn that fails before it has answered the calls of the
 * answer it stopped at (its project's role gone, a budget spent, a cancel) gives each of them a tool error saying it
 * was not run, since a model refuses a conversation with a call that has no result.
 */
export function withClosedToolCalls(messages: readonly ConversationMessage[], error: unknown): ConversationMessage[] {
  const answered = new Set(messages.flatMap((message) => (message.role === "tool" && typeof message["tool_call_id"] === "string" ? [message["tool_call_id"]] : [])));
  const body = toErrorBody(error);
  const closed: ConversationMessage[] = [];
  for (const message of messages) {
    closed.push(message);
    if (message.role !== "assistant" || !Array.isArray(message["tool_calls"])) continue;
    for (const call of message["tool_calls"] as Array<{ id?: unknown }>) {
      if (typeof call.id !== "string" || answered.has(call.id)) continue;
      closed.push({ role: "tool", tool_call_id: call.id, content: JSON.stringify({ success: false, error: { code: body.code, message: `Not run: ${body.message}` } }) });
    }
  }
  return closed;
}
