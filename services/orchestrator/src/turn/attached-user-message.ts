import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { AttachedFiles, withAttachedFiles, type ConversationMessage, type RunStartRequest } from "@agent-orchestrator/shared/wire";

/**
 * A turn's user message as the session keeps it: the text as the user typed it, and the files attached to it
 * beside the text rather than in it, so the chat shows what was typed (with the files next to it) and a
 * stateless `/v1` client's resent history still matches the session (openai/session-matcher.ts).
 */
export function storedUserMessage(request: Pick<RunStartRequest, "message" | "attachments">): ConversationMessage {
  const attachments = request.attachments ?? [];
  return { role: "user", content: request.message, ...(attachments.length > 0 ? { attachments } : {}) };
}

/**
 * The stored conversation as the model reads it: each user message's attachments become the note after its
 * text (withAttachedFiles), on this turn and every later one, and the field itself is dropped, since a model API
 * may refuse a message field it does not know. A malformed `attachments` (never written by this service) is
 * left out.
 */
export function modelConversation(messages: readonly ConversationMessage[]): ChatCompletionMessageParam[] {
  return messages.map((message) => {
    if (message.role !== "user" || !("attachments" in message)) return message as ChatCompletionMessageParam;
    const { attachments, ...rest } = message;
    const parsed = AttachedFiles.safeParse(attachments);
    const content = typeof rest["content"] === "string" && parsed.success ? withAttachedFiles(rest["content"], parsed.data) : rest["content"];
    return { ...rest, content } as ChatCompletionMessageParam;
  });
}
