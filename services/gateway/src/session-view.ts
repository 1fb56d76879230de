import { SessionGetReply, subjects, type SessionView } from "@agent-orchestrator/shared";
import type { GatewayContext } from "./gateway-context.js";
import { callService } from "./nats-call.js";

/** Pages a client may ask for: a runaway `next_message_offset` cannot keep the gateway asking forever. */
const maxPages = 1_000;

/**
 * One of `owner`'s sessions with its whole visible conversation: the orchestrator answers in pages, each
 * within one NATS message, and this joins them. Another user's session is SESSION_NOT_FOUND.
 */
export async function getSessionView(context: GatewayContext, sessionId: string, owner: string): Promise<SessionView> {
  const first = await callService(context, subjects.sessionGet, { session_id: sessionId, owner }, SessionGetReply);
  const messages = [...first.session.messages];
  let next = first.next_message_offset;
  for (let page = 1; next && page < maxPages; page++) {
    const reply = await callService(context, subjects.sessionGet, { session_id: sessionId, owner, message_offset: next }, SessionGetReply);
    messages.push(...reply.session.messages);
    next = reply.next_message_offset;
  }
  return { ...first.session, messages };
}
