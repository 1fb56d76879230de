import { AppError } from "@agent-orchestrator/shared/runtime";
import { mayWrite, ProjectReply, subjects, subjectTokenPattern, type FileSpaceRef, type ProjectView } from "@agent-orchestrator/shared/wire";
import type { GatewayContext } from "../gateway-context.js";
import { callService } from "../nats-call.js";

/** The project id that names the caller's personal default project on every `/api/projects/:id…` route. */
export const defaultProjectAlias = "default";

/**
 * The caller's view of a project, with their role in it (the orchestrator decides: a non-member gets
 * PROJECT_NOT_FOUND, exactly like a missing project). `default` is the caller's default project, made on
 * first use. An id that cannot be a project id is answered alike, so ids cannot be probed.
 */
export async function getProject(context: GatewayContext, user: string, id: string | string[] | undefined): Promise<ProjectView> {
  const projectId = id === defaultProjectAlias ? undefined : checkedProjectId(id);
  return (await callService(context, subjects.projectRequest("get"), { user, project_id: projectId }, ProjectReply)).project;
}

/** The id to send the orchestrator: `default` is resolved to the caller's default project's own id. */
export async function resolveProjectId(context: GatewayContext, user: string, id: string | string[] | undefined): Promise<string> {
  return id === defaultProjectAlias ? (await getProject(context, user, id)).id : checkedProjectId(id);
}

/** Writes (delete, restore, upload) need an editor or the owner; a viewer reads only. */
export function requireWriter(project: ProjectView): void {
  if (!mayWrite(project.role)) throw new AppError("PROJECT_FORBIDDEN", `A ${project.role} of this project cannot change its files`);
}

function checkedProjectId(id: string | string[] | undefined): string {
  if (typeof id !== "string" || !subjectTokenPattern.test(id)) throw new AppError("PROJECT_NOT_FOUND", "Project not found");
  return id;
}

/** The file space of project `id` once the caller's role allows `access` (a viewer reads only). */
export async function projectSpace(context: GatewayContext, user: string, id: string | string[] | undefined, access: "read" | "write"): Promise<FileSpaceRef> {
  const project = await getProject(context, user, id);
  if (access === "write") requireWriter(project);
  return { kind: "project", id: project.id };
}
