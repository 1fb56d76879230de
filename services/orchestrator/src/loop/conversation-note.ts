import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";

/** `2026-11-22`. */
export const isoDate = (today: Date): string => today.toISOString().slice(0, 10);

/**
 * What the model is told about the day. It is not in the system prompt, so that an agent's system prompt and
 * tool list are the same bytes in every chat on every day and a provider's prompt cache serves them
 * (docs/models.md "Prompt caching"); it comes after the system prompt instead (`withConversationNote`).
 */
export const dateNote = (today: Date): string => `[From the system: today's date is ${isoDate(today)}.]`;

/**
 * The messages of one model call with `note` after the system prompt: at the end of the conversation's first
 * message when that is the user's (a chat template that wants user and assistant to alternate, as Mistral's and
 * Gemma's do, refuses two user messages in a row), a user message of its own before the conversation otherwise
 * (one that starts with the agent's greeting). The system prompt stays the same in every chat, and the whole
 * conversation, the note included, from call to call and turn to turn. The stored conversation never holds it.
 */
export function withConversationNote(messages: readonly ChatCompletionMessageParam[], note: string | undefined): ChatCompletionMessageParam[] {
  if (note === undefined) return [...messages];
  const conversationStart = messages.findIndex((message) => message.role !== "system");
  const at = conversationStart === -1 ? messages.length : conversationStart;
  const first = messages[at];
  if (first?.role === "user") {
    const content = typeof first.content === "string" ? `${first.content}\n\n${note}` : [...first.content, { type: "text" as const, text: note }];
    return [...messages.slice(0, at), { ...first, content }, ...messages.slice(at + 1)];
  }
  return [...messages.slice(0, at), { role: "user", content: note }, ...messages.slice(at)];
}
