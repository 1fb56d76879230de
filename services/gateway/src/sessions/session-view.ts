import { SessionGetReply, subjects, type SessionView } from "@agent-orchestrator/shared/wire";
import type { GatewayContext } from "../gateway-context.js";
import { callService } from "../nats-call.js";

/** Pages a client may ask for: a runaway `next_message_offset` cannot keep the gateway asking forever. */
const maxPages = 1_000;

/**
 * A chat `user` may see (theirs, or one of a project they are a member of) with its whole visible
 * conversation: the orchestrator answers in pages, each within one NATS message, and this joins them.
 * Anyone else gets SESSION_NOT_FOUND.
 */
export async function getSessionView(context: GatewayContext, sessionId: string, user: string): Promise<SessionView> {
  const first = await callService(context, subjects.sessionGet, { session_id: sessionId, user }, SessionGetReply);
  const messages = [...first.session.messages];
  let next = first.next_message_offset;
  for (let page = 1; next && page < maxPages; page++) {
    const reply = await callService(context, subjects.sessionGet, { session_id: sessionId, user, message_offset: next }, SessionGetReply);
    messages.push(...reply.session.messages);
    next = reply.next_message_offset;
  }
  return { ...first.session, messages };
}
