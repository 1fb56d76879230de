import { AppError, retryWhileLeaderless } from "@agent-orchestrator/shared/runtime";
import { roleOf, type ProjectRecord } from "@agent-orchestrator/shared/wire";
import type { ProjectStore } from "../projects/project-store.js";
import type { SessionStore } from "./session-store.js";

/** Where a chat is, as found for someone who may see it. */
export interface VisibleChat {
  /** the member whose chat it is */
  owner: string;
  project: ProjectRecord;
}

const notFound = () => new AppError("SESSION_NOT_FOUND", "Session not found");

/**
 * The chat `id` if `user` may see it: theirs, or one of a project they are a member of (docs/projects.md "What a
 * project is"). Anyone else gets SESSION_NOT_FOUND, exactly like a missing chat, so ids cannot be probed.
 */
export async function visibleChat(stores: { sessions: SessionStore; projects: ProjectStore }, id: string, user: string): Promise<VisibleChat> {
  const place = await retryWhileLeaderless(() => stores.sessions.locate(id));
  const project = place && (await stores.projects.get(place.project_id));
  if (!place || !project || (place.owner !== user && roleOf(project.record, user) === undefined)) throw notFound();
  return { owner: place.owner, project: project.record };
}

/**
 * The chat `id` if `user` may rename or delete it: its owner or its project's owner. Another member, who may
 * read it, gets PROJECT_FORBIDDEN; anyone else SESSION_NOT_FOUND.
 */
export async function managedChat(stores: { sessions: SessionStore; projects: ProjectStore }, id: string, user: string, action: string): Promise<VisibleChat> {
  const chat = await visibleChat(stores, id, user);
  if (chat.owner !== user && chat.project.owner !== user) {
    throw new AppError("PROJECT_FORBIDDEN", `Only the chat's owner or the project's owner can ${action}`);
  }
  return chat;
}
