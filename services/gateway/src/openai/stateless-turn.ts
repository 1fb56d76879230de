import { AppError } from "@agent-orchestrator/shared/runtime";
import { maxUserMessageChars, type Attachment } from "@agent-orchestrator/shared/wire";
import { conversationEnvelope } from "./conversation-envelope.js";
import type { GatewayContext } from "../gateway-context.js";
import type { ClientConversation } from "./openai-conversation.js";
import { findSessionHolding } from "./session-matcher.js";

/**
 * The turn of a client that sends its whole conversation (docs/openai-api.md "Sessions"): the session that holds
 * exactly the earlier messages gets the last one; otherwise a new session starts, its first message carrying the
 * client's instructions and history once. Either way the turn attaches the last user message's files only.
 * A history too long to carry is refused naming the request's `field` and how the client can continue a chat instead.
 */
export async function planStatelessTurn(
  context: GatewayContext,
  owner: string,
  agentId: string,
  conversation: ClientConversation,
  projectId: string | undefined,
  refusal: { field: string; continueWith: string },
): Promise<{ message: string; session_id?: string; attachments: Attachment[] }> {
  const { attachments } = conversation;
  const found = await findSessionHolding(context, owner, agentId, conversation, projectId);
  if (found) return { message: conversation.message, session_id: found, attachments };
  const message = conversationEnvelope(conversation.instructions, conversation.earlier, conversation.message);
  if (message.length > maxUserMessageChars) {
    throw new AppError(
      "VALIDATION_ERROR",
      `${refusal.field}: the conversation is too long to start a session with (${maxUserMessageChars} characters at most); continue a session with ${refusal.continueWith} instead`,
    );
  }
  return { message, attachments };
}
