import { AppError } from "@agent-orchestrator/shared/runtime";
import { type SessionSummary, type StoredResponse } from "@agent-orchestrator/shared/wire";
import type { GatewayContext } from "../gateway-context.js";
import { sessionAccess } from "../access/session-access.js";
import type { ResponseStore } from "./response-store.js";

/** A stored response and its chat, for a caller the chat lets read it. */
export interface ReadableResponse {
  record: StoredResponse;
  session: SessionSummary;
}

/**
 * The response `id` if `user` may read its chat (theirs, or one of a project they are a member of), asked of the
 * chat on every read. A missing response, a deleted chat and someone else's chat answer alike, 404, so an id
 * tells a stranger nothing (docs/security.md).
 */
export async function readableResponse(
  context: GatewayContext,
  responses: ResponseStore,
  id: string,
  user: string,
  label = "Response",
): Promise<ReadableResponse> {
  const notFound = new AppError("NOT_FOUND", `${label} with id ${JSON.stringify(id)} not found`);
  const record = await responses.get(id);
  if (!record) throw notFound;
  try {
    return { record, session: await sessionAccess(context, record.session_id, user) };
  } catch (error) {
    if (AppError.is(error) && error.code === "SESSION_NOT_FOUND") throw notFound;
    throw error;
  }
}
