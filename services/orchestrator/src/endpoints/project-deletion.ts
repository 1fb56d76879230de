import type { NatsConnection } from "nats";
import { AppError, isCasConflict, retryWhileLeaderless } from "@agent-orchestrator/shared/runtime";
import { type SessionHead } from "@agent-orchestrator/shared/wire";
import type { ApprovalStore } from "../approvals/approval-store.js";
import { retryOnConflict } from "../nats/compare-and-set.js";
import type { OrchestratorConfig } from "../config.js";
import type { SessionStore } from "../sessions/session-store.js";
import { isAbandoned } from "../sessions/abandoned-turn.js";
import { purgeFileSpace } from "../projects/file-space-purge.js";
import { projectOfMember, requireOwner } from "../projects/project-access.js";
import type { ProjectStore } from "../projects/project-store.js";

export interface ProjectDeletionDeps {
  connection: NatsConnection;
  config: Pick<OrchestratorConfig, "TOOL_TIMEOUT_MS" | "TURN_TIMEOUT_MS" | "RUN_ACK_WAIT_MS" | "RUN_MAX_DELIVER">;
  projects: ProjectStore;
  sessions: SessionStore;
  approvals: ApprovalStore;
  subjectPrefix: string;
}

/**
 * Deletes a project for its owner: refused with PROJECT_BUSY while a chat of it runs a turn; otherwise its chats
 * (heads, conversations, pointers, the tool calls they wait on), then its files and each chat's scratch space (the
 * tool-runner purges them on `project.files.purge`), then the record. The record goes last, so a delete that fails half-way (the tool-runner
 * did not answer) leaves the project in place, and deleting it again finishes the work. A chat is removed only if
 * its head is unchanged since the busy check (compare-and-set), so a turn that starts meanwhile makes the delete
 * PROJECT_BUSY instead of losing that turn; chats made while the files were purged are swept after the record.
 * A personal project cannot be deleted: every client that names no project would only get a new one.
 */
export async function deleteProject(deps: ProjectDeletionDeps, projectId: string, user: string): Promise<{ sessions: number; files: number }> {
  const { record } = await projectOfMember(deps.projects, projectId, user);
  requireOwner(record, user, "delete it");
  if (record.personal) throw new AppError("PROJECT_FORBIDDEN", "A personal project cannot be deleted");
  const chats = await retryWhileLeaderless(() => deps.sessions.listByProject(projectId));
  if (chats.some(({ head }) => head.status === "running" && !isAbandoned(head, deps.config))) {
    throw new AppError("PROJECT_BUSY", "A chat of this project is running a turn; delete the project when it has ended");
  }
  const removed = await removeChats(deps, projectId, chats);
  let files = await purgeFileSpace(deps, { kind: "project", id: projectId });
  for (const head of removed) files += await purgeFileSpace(deps, { kind: "session", id: head.id });
  await retryOnConflict(async () => {
    const current = await deps.projects.get(projectId);
    if (current) await deps.projects.remove(current);
  });
  // a new chat that passed its project check before the record went, and was made after the listing above
  const late = await removeChats(deps, projectId, await retryWhileLeaderless(() => deps.sessions.listByProject(projectId)), { lenient: true });
  for (const head of late) files += await purgeFileSpace(deps, { kind: "session", id: head.id });
  return { sessions: removed.length + late.length, files };
}

async function removeChats(
  deps: ProjectDeletionDeps,
  projectId: string,
  chats: ReadonlyArray<{ head: SessionHead; revision: number }>,
  options: { lenient?: boolean } = {},
): Promise<SessionHead[]> {
  const removed: SessionHead[] = [];
  for (const { head, revision } of chats) {
    try {
      await retryWhileLeaderless(() => deps.sessions.remove(head, revision));
      // a waiting call of a chat that is gone would stay listed, and decidable by nobody, until it expired
      await deps.approvals.forgetChat(projectId, head.id);
      removed.push(head);
    } catch (error) {
      if (!isCasConflict(error)) throw error;
      if (!options.lenient) throw new AppError("PROJECT_BUSY", "A chat of this project started a turn while it was being deleted; try again when it has ended");
    }
  }
  return removed;
}
