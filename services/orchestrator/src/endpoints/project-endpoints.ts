import type { Service } from "nats";
import { addJsonEndpoint, AppError, type Logger } from "@agent-orchestrator/shared/runtime";
import {
  ProjectCreateRequest,
  ProjectDeleteRequest,
  ProjectGetRequest,
  ProjectListRequest,
  ProjectMemberDeleteRequest,
  ProjectMemberPutRequest,
  ProjectMembersRequest,
  ProjectRenameRequest,
  roleOf,
  subjects,
  toProjectView,
  type ProjectMember,
  type ProjectOperation,
  type ProjectRecord,
  type ProjectView,
} from "@agent-orchestrator/shared/wire";
import type { z } from "zod";
import type { OrchestratorConfig } from "../config.js";
import { projectOfMember, requireOwner } from "../projects/project-access.js";
import { publishProjectChange } from "../projects/project-change-notice.js";
import { deleteProject, type ProjectDeletionDeps } from "./project-deletion.js";

type Handler<S extends z.ZodType> = (body: z.infer<S>) => Promise<unknown>;

export interface ProjectEndpointsDeps extends ProjectDeletionDeps {
  config: ProjectDeletionDeps["config"] & Pick<OrchestratorConfig, "PROJECTS_PER_USER">;
  /** what else goes with a deleted project (its BMAD settings, docs/settings.md) */
  forgetProject?: (projectId: string) => Promise<void>;
}

/**
 * `agent.project.<operation>` for every operation of `projectOperations` (docs/projects.md "What a project is"):
 * anyone creates up to PROJECTS_PER_USER projects; any member gets, lists and reads the members; only the owner
 * renames, deletes and manages members; a non-member gets PROJECT_NOT_FOUND for everything, exactly like a
 * missing project.
 */
export function addProjectEndpoints(service: Service, deps: ProjectEndpointsDeps, logger: Logger): void {
  const { projects } = deps;
  const add = <S extends z.ZodType>(operation: ProjectOperation, schema: S, handler: Handler<S>) =>
    addJsonEndpoint(service, `project-${operation}`, deps.subjectPrefix + subjects.projectRequest(operation), schema, handler, logger);

  add("create", ProjectCreateRequest, async ({ user, name }) => ({ success: true, project: toProjectView(await projects.create(user, name, deps.config.PROJECTS_PER_USER), "owner") }));

  add("list", ProjectListRequest, async ({ user }) => {
    // the personal project is made on first use, and listing the projects is a use
    const personal = await projects.defaultFor(user);
    // the caller's projects only, through the index: another user's many projects cost this listing nothing (docs/projects.md "Storage")
    const visible = (await projects.memberProjects(user)).flatMap((record) => {
      const role = roleOf(record, user);
      return role ? [toProjectView(record, role)] : [];
    });
    if (!visible.some((project) => project.id === personal.id)) visible.push(toProjectView(personal, "owner"));
    // the caller's personal project first, then the others as they were made
    const order = (project: ProjectView) => (project.id === personal.id ? "" : project.created_at);
    return { success: true, projects: visible.sort((a, b) => order(a).localeCompare(order(b))) };
  });

  add("get", ProjectGetRequest, async ({ user, project_id }) => {
    if (project_id === undefined) return { success: true, project: toProjectView(await projects.defaultFor(user), "owner") };
    const { record, role } = await projectOfMember(projects, project_id, user);
    return { success: true, project: toProjectView(record, role) };
  });

  add("rename", ProjectRenameRequest, async ({ user, project_id, name }) => {
    const record = await ownerUpdate(deps, project_id, user, "rename it", (current) => ({ ...current, name }));
    return { success: true, project: toProjectView(record, "owner") };
  });

  add("delete", ProjectDeleteRequest, async ({ user, project_id }) => {
    const deleted = await deleteProject(deps, project_id, user);
    // the project is gone whatever becomes of this: a leftover is a small key no one can read any more
    await deps.forgetProject?.(project_id).catch((error: unknown) => logger.warn({ err: error, projectId: project_id }, "a deleted project's settings were not removed"));
    publishProjectChange(deps, project_id, "deleted");
    return { success: true, deleted };
  });

  add("members", ProjectMembersRequest, async ({ user, project_id }) => {
    const { record } = await projectOfMember(projects, project_id, user);
    return { success: true, members: membersOf(record) };
  });

  add("member_put", ProjectMemberPutRequest, async ({ user, project_id, member, role }) => {
    const record = await ownerUpdate(deps, project_id, user, "manage its members", (current) => {
      if (member === current.owner) throw new AppError("BAD_REQUEST", "The owner is not a member with a role: they own the project");
      return { ...current, members: { ...current.members, [member]: role } };
    });
    publishProjectChange(deps, project_id, "members");
    return { success: true, members: membersOf(record) };
  });

  // removing someone who is not a member changes nothing and succeeds, like an HTTP DELETE repeated
  add("member_delete", ProjectMemberDeleteRequest, async ({ user, project_id, member }) => {
    const record = await ownerUpdate(deps, project_id, user, "manage its members", (current) => {
      if (member === current.owner) throw new AppError("BAD_REQUEST", "The owner cannot be removed from their project");
      const { [member]: _removed, ...members } = current.members;
      return { ...current, members };
    });
    publishProjectChange(deps, project_id, "members");
    return { success: true, members: membersOf(record) };
  });
}

/**
 * A change only the owner may make, by compare-and-set; membership and ownership are checked again on every
 * read of a retry, so a change never applies to a record the caller no longer owns.
 */
async function ownerUpdate(
  deps: ProjectDeletionDeps,
  projectId: string,
  user: string,
  action: string,
  change: (record: ProjectRecord) => ProjectRecord,
): Promise<ProjectRecord> {
  await projectOfMember(deps.projects, projectId, user);
  return deps.projects.update(projectId, (current) => {
    requireOwner(current, user, action);
    return change(current);
  });
}

/** The owner first, then the members by name. */
function membersOf(record: ProjectRecord): ProjectMember[] {
  const members = Object.entries(record.members)
    .map(([user, role]): ProjectMember => ({ user, role }))
    .sort((a, b) => a.user.localeCompare(b.user));
  return [{ user: record.owner, role: "owner" }, ...members];
}
