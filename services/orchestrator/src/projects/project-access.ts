import { AppError } from "@agent-orchestrator/shared/runtime";
import { mayWrite, roleOf, type ProjectRecord, type ProjectRole } from "@agent-orchestrator/shared/wire";
import { projectNotFound, type ProjectStore, type StoredProject } from "./project-store.js";

export interface MemberProject extends StoredProject {
  role: ProjectRole;
}

/**
 * The project as `user` may see it: PROJECT_NOT_FOUND when it is missing or they are not a member, exactly
 * alike, so a non-member learns nothing of it (docs/projects.md "What a project is").
 */
export async function projectOfMember(projects: ProjectStore, projectId: string, user: string): Promise<MemberProject> {
  const stored = await projects.get(projectId);
  const role = stored ? roleOf(stored.record, user) : undefined;
  if (!stored || !role) throw projectNotFound();
  return { ...stored, role };
}

/** The project if `user` may write to it and run turns in it (owner or editor); a viewer gets PROJECT_FORBIDDEN. */
export async function projectOfWriter(projects: ProjectStore, projectId: string, user: string): Promise<MemberProject> {
  const stored = await projects.get(projectId);
  if (!stored) throw projectNotFound();
  return { ...stored, role: writerRole(stored.record, user) };
}

/** `user`'s role in a project already read, if they may write to it (projectOfWriter's answers, without a read). */
export function writerRole(record: ProjectRecord, user: string): ProjectRole {
  const role = roleOf(record, user);
  if (!role) throw projectNotFound();
  if (!mayWrite(role)) throw new AppError("PROJECT_FORBIDDEN", "A viewer of this project cannot run turns or write to it");
  return role;
}

/** Refuses anyone but the owner: only they rename, delete and manage members. */
export function requireOwner(record: ProjectRecord, user: string, action: string): void {
  if (record.owner !== user) throw new AppError("PROJECT_FORBIDDEN", `Only the project's owner can ${action}`);
}
