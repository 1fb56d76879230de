import { randomUUID } from "node:crypto";
import type { Service } from "nats";
import { addJsonEndpoint, AppError, retryWhileLeaderless } from "@agent-orchestrator/shared/runtime";
import { GreetingRequest, subjects, type AgentDefinition, type Greeting, type ProjectRecord, type ToolContext } from "@agent-orchestrator/shared/wire";
import { projectOfMember, projectOfWriter } from "../projects/project-access.js";
import type { TurnDeps } from "../turn/turn-deps.js";
import { buildGreeting } from "../sessions/greeting.js";
import { turnSettings } from "../settings/turn-settings.js";

type GreetingDeps = Pick<TurnDeps, "config" | "logger" | "store" | "projects" | "registry" | "starts" | "tools" | "subjectPrefix" | "settings">;

/**
 * `agent.session.start`: a new chat whose first message is its agent's greeting, built by the system from the
 * agent's start without a model call (greeting.ts), in a project the caller owns or edits; the next turn
 * (`POST /api/chat` with its `session_id`) continues it, the model seeing the greeting as its own earlier answer.
 * `agent.session.greeting`: the same greeting for any member of the project, nothing stored (an agent picker's preview).
 */
export function addGreetingEndpoints(service: Service, deps: GreetingDeps): void {
  const { store, logger, subjectPrefix } = deps;
  addJsonEndpoint(
    service,
    "session-start",
    subjectPrefix + subjects.sessionStart,
    GreetingRequest,
    async ({ user, agent_id, project_id, caller_name, branch }) => {
      const projectId = project_id ?? (await deps.projects.defaultFor(user)).id;
      const { record } = await projectOfWriter(deps.projects, projectId, user);
      const sessionId = randomUUID();
      const { agent, greeting } = await greetingOf(deps, { user, agentId: agent_id, projectId, sessionId, record, callerName: caller_name });
      const created = await retryWhileLeaderless(() =>
        store.createIdle({ id: sessionId, agentId: agent.id, owner: user, projectId, branch, messages: [{ role: "assistant", content: greeting.text }] }),
      );
      // a fresh random id is never taken; if it were, no other chat is overwritten
      if (!created) throw new AppError("INTERNAL", "The new chat's id was already taken; try again");
      return { success: true, session_id: sessionId, project_id: projectId, greeting };
    },
    logger,
  );
  addJsonEndpoint(
    service,
    "session-greeting",
    subjectPrefix + subjects.sessionGreeting,
    GreetingRequest,
    async ({ user, agent_id, project_id, caller_name }) => {
      const projectId = project_id ?? (await deps.projects.defaultFor(user)).id;
      const { record } = await projectOfMember(deps.projects, projectId, user);
      // the start reads as a chat of the project would; this id names no chat, and the start's reads store nothing under it
      const { greeting } = await greetingOf(deps, { user, agentId: agent_id, projectId, sessionId: randomUUID(), record, callerName: caller_name });
      return { success: true, project_id: projectId, greeting };
    },
    logger,
  );
}

/** The agent's greeting after its start in `projectId`, as a turn of chat `sessionId` would start it (and kept alike). */
async function greetingOf(
  deps: GreetingDeps,
  chat: { user: string; agentId: string; projectId: string; sessionId: string; record: ProjectRecord; callerName: string | undefined },
): Promise<{ agent: AgentDefinition; greeting: Greeting }> {
  const agent = await deps.registry.agent(chat.agentId);
  // the member's name and language and the project's answers, as a turn of this chat would have them (docs/settings.md)
  const settings = deps.settings
    ? turnSettings(await deps.settings.documents(chat.projectId, chat.user), { projectName: chat.record.personal ? undefined : chat.record.name, callerName: chat.callerName })
    : undefined;
  const context: ToolContext = {
    session_id: chat.sessionId,
    bundle_path: agent.bundlePath,
    project_id: chat.projectId,
    user: chat.user,
    agent_id: agent.id,
    ...(settings ? { settings } : {}),
  };
  const start = await deps.starts.start(deps.tools, agent, context, `greeting-${chat.sessionId}:start`, AbortSignal.timeout(deps.config.TOOL_TIMEOUT_MS));
  return { agent, greeting: buildGreeting(agent, start) };
}
