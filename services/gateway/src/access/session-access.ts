import { AppError } from "@agent-orchestrator/shared/runtime";
import { SessionGetReply, subjects, subjectTokenPattern, type SessionSummary } from "@agent-orchestrator/shared/wire";
import type { GatewayContext } from "../gateway-context.js";
import { callService } from "../nats-call.js";

/**
 * A chat `user` may see (theirs, or one of a project they are a member of, viewers included), without its
 * conversation: the orchestrator answers SESSION_NOT_FOUND for anyone else, exactly like a missing chat.
 */
export async function sessionAccess(context: GatewayContext, id: string | string[] | undefined, user: string): Promise<SessionSummary> {
  return (await callService(context, subjects.sessionGet, { session_id: checkedSessionId(id), user }, SessionGetReply)).session;
}

/** Only the chat's owner runs and stops its turns; the project's other members read and watch it. */
export function requireChatOwner(session: SessionSummary, user: string): void {
  if (session.owner !== user) throw new AppError("PROJECT_FORBIDDEN", "Only the member whose chat this is can stop its turn");
}

export function checkedSessionId(id: string | string[] | undefined): string {
  if (typeof id !== "string" || !subjectTokenPattern.test(id)) throw new AppError("SESSION_NOT_FOUND", "Session not found");
  return id;
}
