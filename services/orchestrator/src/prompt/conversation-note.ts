import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";

/** `2026-11-22`. */
export const isoDate = (today: Date): string => today.toISOString().slice(0, 10);

/**
 * What the model is told about the day. It is not in the system prompt, so that an agent's system prompt and
 * tool list are the same bytes in every chat on every day and a provider's prompt cache serves them
 * (docs/models.md "Prompt caching"); it is a message of its own after the system prompt instead.
 */
export const dateNote = (today: Date): string => `[From the system: today's date is ${isoDate(today)}.]`;

/**
 * The messages of one model call with `note` as a user message of its own right after the system prompt, before
 * the conversation (as Codex sends its environment context): everything before it stays the same in every chat,
 * and the whole conversation after it from call to call and turn to turn. The user's own messages are left as
 * they were typed, and the stored conversation never holds the note.
 */
export function withConversationNote(messages: readonly ChatCompletionMessageParam[], note: string | undefined): ChatCompletionMessageParam[] {
  if (note === undefined) return [...messages];
  const conversationStart = messages.findIndex((message) => message.role !== "system");
  const at = conversationStart === -1 ? messages.length : conversationStart;
  return [...messages.slice(0, at), { role: "user", content: note }, ...messages.slice(at)];
}
