import { AppError } from "@agent-orchestrator/shared/runtime";
import { GetAgentReply, subjects } from "@agent-orchestrator/shared/wire";
import type { GatewayContext } from "../gateway-context.js";
import { callService } from "../nats-call.js";
import { getProject } from "../access/project-access.js";
import { exportFileName, sessionMarkdown } from "./session-markdown.js";
import { getSessionView } from "./session-view.js";

/**
 * A chat `user` may read as a Markdown document and the file name to save it under. The agent and the project are
 * named as they are called now; one that is gone (an agent removed from the install, a project the chat's owner
 * has left) is named by its id, so the chat can still be exported.
 */
export async function sessionExport(context: GatewayContext, sessionId: string, user: string): Promise<{ markdown: string; fileName: string }> {
  const session = await getSessionView(context, sessionId, user);
  const [agentName, projectName] = await Promise.all([
    callService(context, subjects.registryAgentsGet, { agent_id: session.agent_id }, GetAgentReply).then(
      ({ agent }) => agent.name || agent.id,
      fallback("AGENT_NOT_FOUND", session.agent_id),
    ),
    getProject(context, user, session.project_id).then(({ name }) => name, fallback("PROJECT_NOT_FOUND", session.project_id)),
  ]);
  return { markdown: sessionMarkdown(session, { agentName, projectName }), fileName: exportFileName(session) };
}

/** `id` for a lookup refused with `code`; any other failure is thrown. */
const fallback =
  (code: "AGENT_NOT_FOUND" | "PROJECT_NOT_FOUND", id: string) =>
  (error: unknown): string => {
    if (AppError.is(error) && error.code === code) return id;
    throw error;
  };
