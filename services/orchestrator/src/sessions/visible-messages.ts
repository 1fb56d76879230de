import { AttachedFiles, type SessionRecord, type VisibleMessage } from "@agent-orchestrator/shared";

/** The conversation as a person sees it: their messages (with the files attached to them) and the agent's text answers. */
export function visibleMessages(record: Pick<SessionRecord, "messages">): VisibleMessage[] {
  const messages: VisibleMessage[] = [];
  for (const message of record.messages) {
    const content = message["content"];
    if ((message.role === "user" || message.role === "assistant") && typeof content === "string" && content !== "") {
      const attachments = message.role === "user" ? AttachedFiles.safeParse(message["attachments"]) : undefined;
      messages.push({ role: message.role, content, ...(attachments?.success && attachments.data.length > 0 ? { attachments: attachments.data } : {}) });
    }
  }
  return messages;
}
