import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { parseJson } from "@agent-orchestrator/shared/runtime";

/** One tool call of a conversation: its tool, its arguments as sent, and where its assistant message is. */
export interface IndexedToolCall {
  id: string;
  name: string;
  /** the arguments as the model sent them (JSON text) */
  arguments: string;
  /** the arguments parsed, {} when they are not a JSON object */
  args: Record<string, unknown>;
  /** index of the assistant message that made it */
  at: number;
}

/** Every tool call of `messages` by id, in order (a stored conversation's calls are unique by id: loop/tool-call-ids.ts). */
export function indexToolCalls(messages: readonly ChatCompletionMessageParam[]): Map<string, IndexedToolCall> {
  const calls = new Map<string, IndexedToolCall>();
  messages.forEach((message, at) => {
    if (message.role !== "assistant" || !message.tool_calls) return;
    for (const call of message.tool_calls) {
      if (call.type !== "function") continue;
      const parsed = parseJson(call.function.arguments || "{}");
      const args = parsed.ok && typeof parsed.value === "object" && parsed.value !== null && !Array.isArray(parsed.value) ? (parsed.value as Record<string, unknown>) : {};
      calls.set(call.id, { id: call.id, name: call.function.name, arguments: call.function.arguments, args, at });
    }
  });
  return calls;
}

/** A string argument of a call, when it has one. */
export const stringArgument = (call: IndexedToolCall | undefined, name: string): string | undefined => {
  const value = call?.args[name];
  return typeof value === "string" && value !== "" ? value : undefined;
};
