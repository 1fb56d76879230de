import { isCasConflict, retryWhileLeaderless } from "@agent-orchestrator/shared/runtime";
import type { SessionStore } from "../sessions/session-store.js";
import type { ProjectStore } from "../projects/project-store.js";

/**
 * Moves every session written before projects into its owner's default project (made if needed), run at start.
 * Idempotent and safe with several replicas starting at once: a session is moved by compare-and-set on its head,
 * and a replica that loses the race leaves it to the winner; the default project is made once however many
 * replicas ask (ProjectStore.defaultFor). Later starts find nothing to move. Returns how many this replica moved.
 */
export async function moveSessionsIntoProjects(sessions: SessionStore, projects: ProjectStore): Promise<number> {
  let moved = 0;
  for (const { head, revision } of await retryWhileLeaderless(() => sessions.headsWithoutProject())) {
    const project = await projects.defaultFor(head.owner);
    try {
      await retryWhileLeaderless(() => sessions.placeInProject(head, revision, project.id));
      moved++;
    } catch (error) {
      if (!isCasConflict(error)) throw error;
    }
  }
  return moved;
}
