import type { NatsConnection } from "nats";
import { encodeJson } from "@agent-orchestrator/shared/runtime";
import { subjects, type ProjectChanged } from "@agent-orchestrator/shared/wire";

/**
 * Tells every gateway that a project's members changed or that it is gone (`project.changed.<project>`), so a
 * member removed stops receiving its chats' turns on a watch held open (docs/projects.md "What a project is").
 * A plain publish: a gateway that misses it checks again at the chat's next turn.
 */
export function publishProjectChange(deps: { connection: NatsConnection; subjectPrefix: string }, projectId: string, change: ProjectChanged["change"]): void {
  const notice: ProjectChanged = { project_id: projectId, change };
  deps.connection.publish(deps.subjectPrefix + subjects.projectChanged(projectId), encodeJson(notice));
}
