import { ChatBranchReply, subjects, type SessionSummary } from "@agent-orchestrator/shared/wire";
import type { GatewayContext } from "../gateway-context.js";
import { callService } from "../nats-call.js";

/** The chat's working tree as the tool-runner names it: its project, its id, the branch it was started on. */
export function chatTreeOf(session: SessionSummary): { project_id: string; session_id: string; branch?: string } {
  return { project_id: session.project_id, session_id: session.id, ...(session.branch === undefined ? {} : { branch: session.branch }) };
}

/**
 * The chat with `branch`, the branch of its project's repository it works on (docs/repositories.md "Branches and
 * working trees"), when its project has one; without it otherwise, or when no tool-runner answers (the chat is shown
 * all the same, and the failure logged).
 */
export async function withChatBranch<T extends SessionSummary>(context: GatewayContext, session: T): Promise<T> {
  const { branch: _started, ...rest } = session;
  try {
    const reply = await callService(context, subjects.repository("branch"), chatTreeOf(session), ChatBranchReply);
    return (reply.branch === null ? rest : { ...rest, branch: reply.branch }) as T;
  } catch (error) {
    context.logger.warn({ err: error, session_id: session.id }, "a chat's branch could not be read; the chat is shown without it");
    return rest as T;
  }
}
