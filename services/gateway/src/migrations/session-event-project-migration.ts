import { SessionGetReply, subjects } from "@agent-orchestrator/shared/wire";
import type { GatewayContext } from "../gateway-context.js";
import { callService } from "../nats-call.js";

/**
 * The project of a chat whose turn an orchestrator from before projects took (during a rolling upgrade): its
 * `session` event names no project, so the chat's record is asked. It can go once no orchestrator from before
 * projects (which added `project_id` to the `session` event) can run beside this gateway.
 */
export async function projectOfChatRecord(context: Pick<GatewayContext, "connection" | "subjectPrefix" | "config">, sessionId: string, user: string): Promise<string> {
  return (await callService(context, subjects.sessionGet, { session_id: sessionId, user }, SessionGetReply)).session.project_id;
}
