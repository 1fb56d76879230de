import { AppError } from "@agent-orchestrator/shared/runtime";
import { maxAttachments, type Attachment, type OpenAiMessage, type VisibleMessage } from "@agent-orchestrator/shared/wire";
import { fileAttachment } from "./openai-file-part.js";

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
  /**
   * the files of the last message's file parts, attached to the turn. An earlier message's files are not
   * attached again: a stateless client resends them with every request, and its session got them in their turn.
   */
  attachments: Attachment[];
}

/**
 * Reads a request's messages; a shape this server cannot run (tool messages, no final user message) is a 400
 * naming `field` (`messages`, or `input` on the Responses API). File parts count only on the last message;
 * elsewhere their text parts alone are read.
 */
export function readClientConversation(messages: readonly OpenAiMessage[], field = "messages"): ClientConversation {
  const instructions: string[] = [];
  const dialogue: VisibleMessage[] = [];
  for (const [index, message] of messages.entries()) {
    if (message.role === "tool" || message.role === "function" || (message.tool_calls?.length ?? 0) > 0) {
      throw new AppError(
        "VALIDATION_ERROR",
        `${field}.${index}: the agent's tools run on this server; send only system, user and assistant text`,
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
    throw new AppError("VALIDATION_ERROR", `${field}: the last message must be a non-empty user message`);
  }
  const lastIndex = messages.findLastIndex((message) => message.role === "user");
  const attachments = fileParts(messages[lastIndex]?.content, `${field}.${lastIndex}`);
  return { instructions: instructions.join("\n\n"), earlier: dialogue, message: last.content, attachments };
}

function contentText(content: OpenAiMessage["content"]): string {
  if (content === undefined || content === null) return "";
  if (typeof content === "string") return content;
  return content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
}

function fileParts(content: OpenAiMessage["content"], where: string): Attachment[] {
  if (!Array.isArray(content)) return [];
  const attachments = content.flatMap((part, partIndex) => (part.type === "file" ? [fileAttachment(part, `${where}.content.${partIndex}`)] : []));
  if (attachments.length > maxAttachments) throw new AppError("VALIDATION_ERROR", `${where}: ${maxAttachments} files at most per message`);
  return attachments;
}
