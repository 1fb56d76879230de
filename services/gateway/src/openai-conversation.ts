import { AppError, type OpenAiMessage, type VisibleMessage } from "@agent-orchestrator/shared";

/**
 * What a stateless client's `messages` say, in this server's terms: the client's own instructions (its
 * system and developer messages), the conversation before the new message, and the new user message.
 */
export interface ClientConversation {
  /** system and developer messages, joined; "" when there are none */
  instructions: string;
  /** the user and assistant messages before the last one, in order */
  earlier: VisibleMessage[];
  /** the last message, which must be the user's: the turn's message */
  message: string;
}

/** Reads a request's messages; a shape this server cannot run (tool messages, no final user message) is a 400. */
export function readClientConversation(messages: readonly OpenAiMessage[]): ClientConversation {
  const instructions: string[] = [];
  const dialogue: VisibleMessage[] = [];
  for (const [index, message] of messages.entries()) {
    if (message.role === "tool" || message.role === "function" || (message.tool_calls?.length ?? 0) > 0) {
      throw new AppError(
        "VALIDATION_ERROR",
        `messages.${index}: the agent's tools run on this server; send only system, user and assistant text`,
      );
    }
    const text = contentText(message.content);
    if (message.role === "system" || message.role === "developer") {
      if (text.trim() !== "") instructions.push(text);
      continue;
    }
    dialogue.push({ role: message.role, content: text });
  }
  const last = dialogue.pop();
  if (!last || last.role !== "user" || last.content.trim() === "") {
    throw new AppError("VALIDATION_ERROR", "messages: the last message must be a non-empty user message");
  }
  return { instructions: instructions.join("\n\n"), earlier: dialogue, message: last.content };
}

function contentText(content: OpenAiMessage["content"]): string {
  if (content === undefined || content === null) return "";
  if (typeof content === "string") return content;
  return content.map((part) => part.text).join("\n");
}
