import { AttachedFiles, type ConversationMessage, type SessionRecord, type VisibleMessage } from "@agent-orchestrator/shared/wire";

/** The conversation as a person sees it: their messages (with the files attached to them) and the agent's text answers. */
export function visibleMessages(record: Pick<SessionRecord, "messages">): VisibleMessage[] {
  const messages: VisibleMessage[] = [];
  for (const message of record.messages) {
    const content = message["content"];
    if (isVisible(message) && typeof content === "string") {
      const attachments = message.role === "user" ? AttachedFiles.safeParse(message["attachments"]) : undefined;
      messages.push({ role: message.role as VisibleMessage["role"], content, ...(attachments?.success && attachments.data.length > 0 ? { attachments: attachments.data } : {}) });
    }
  }
  return messages;
}

/** Whether a stored message is one a person sees: a user's or the agent's text. */
export const isVisible = (message: ConversationMessage): boolean =>
  (message.role === "user" || message.role === "assistant") && typeof message["content"] === "string" && message["content"] !== "";
