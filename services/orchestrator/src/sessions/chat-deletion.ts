import { AppError, isCasConflict, retryWhileLeaderless } from "@agent-orchestrator/shared/runtime";
import type { ApprovalStore } from "../approvals/approval-store.js";
import type { OrchestratorConfig } from "../config.js";
import { purgeFileSpace, type FileSpacePurgeDeps } from "../projects/file-space-purge.js";
import type { ProjectStore } from "../projects/project-store.js";
import { isAbandoned } from "./abandoned-turn.js";
import { managedChat } from "./chat-access.js";
import type { SessionStore } from "./session-store.js";

export interface ChatDeletionDeps extends FileSpacePurgeDeps {
  config: Pick<OrchestratorConfig, "TOOL_TIMEOUT_MS" | "TURN_TIMEOUT_MS" | "RUN_ACK_WAIT_MS" | "RUN_MAX_DELIVER">;
  sessions: SessionStore;
  projects: ProjectStore;
  approvals: ApprovalStore;
}

const busy = () => new AppError("SESSION_BUSY", "This chat is running a turn; delete it when the turn has ended");

/**
 * Deletes a chat for its owner or its project's owner (managedChat): refused with SESSION_BUSY while it runs a turn
 * (one abandoned by dead orchestrators does not count, as for a project's delete); otherwise its head, by
 * compare-and-set on the revision just checked, so a turn that starts meanwhile makes the delete SESSION_BUSY
 * instead of losing that turn; then its conversation and pointers; then the tool calls it waits on, which stop being
 * listed (docs/approvals.md "A chat or project deleted"); then its scratch space (`project.files.purge`).
 * What it wrote into the project stays: those are the project's files. If the purge fails the chat is already gone
 * and its scratch space stays behind unreachable, as for a project's chats; a call left behind is removed when it
 * expires (its resume finds the chat gone).
 */
export async function deleteChat(deps: ChatDeletionDeps, id: string, user: string): Promise<void> {
  const { owner, project } = await managedChat(deps, id, user, "delete it");
  const stored = await retryWhileLeaderless(() => deps.sessions.headOf(id, owner));
  if (!stored) throw new AppError("SESSION_NOT_FOUND", "Session not found");
  if (stored.head.status === "running" && !isAbandoned(stored.head, deps.config)) throw busy();
  try {
    await retryWhileLeaderless(() => deps.sessions.remove(stored.head, stored.revision));
  } catch (error) {
    throw isCasConflict(error) ? busy() : error;
  }
  await deps.approvals.forgetChat(project.id, id);
  await purgeFileSpace(deps, { kind: "session", id });
}
