import { z } from "zod";
import { ErrorReply } from "../error-code.js";
import { MemberRole, ProjectMember, ProjectView, newProjectName, projectIdSchema, userNameSchema } from "./project-record.js";

/**
 * gateway → orchestrator on `agent.project.<operation>` (subjects.projectRequest): every request names the
 * calling user, who must be a member (a non-member gets PROJECT_NOT_FOUND, like a missing project).
 * `project_id` absent means the caller's personal default project, made on first use.
 */
const caller = { user: userNameSchema };

export const ProjectCreateRequest = z.object({ ...caller, name: newProjectName });
export const ProjectListRequest = z.object(caller);
export const ProjectGetRequest = z.object({ ...caller, project_id: projectIdSchema.optional() });
export const ProjectRenameRequest = z.object({ ...caller, project_id: projectIdSchema, name: newProjectName });
export const ProjectDeleteRequest = z.object({ ...caller, project_id: projectIdSchema });
export const ProjectMembersRequest = z.object({ ...caller, project_id: projectIdSchema });
export const ProjectMemberPutRequest = z.object({ ...caller, project_id: projectIdSchema, member: userNameSchema, role: MemberRole });
export const ProjectMemberDeleteRequest = z.object({ ...caller, project_id: projectIdSchema, member: userNameSchema });

export const ProjectReply = z.union([z.object({ success: z.literal(true), project: ProjectView }), ErrorReply]);
export type ProjectReply = z.infer<typeof ProjectReply>;
export const ProjectListReply = z.union([z.object({ success: z.literal(true), projects: z.array(ProjectView) }), ErrorReply]);
export type ProjectListReply = z.infer<typeof ProjectListReply>;
export const ProjectMembersReply = z.union([z.object({ success: z.literal(true), members: z.array(ProjectMember) }), ErrorReply]);
export type ProjectMembersReply = z.infer<typeof ProjectMembersReply>;
export const ProjectDeleteReply = z.union([z.object({ success: z.literal(true), deleted: z.object({ sessions: z.number().int(), files: z.number().int() }) }), ErrorReply]);
export type ProjectDeleteReply = z.infer<typeof ProjectDeleteReply>;

/**
 * What the orchestrator publishes on `project.changed.<project>` after a member is added, changed or removed
 * (`members`) or the project is deleted (`deleted`). A plain publish, which can be lost: a watch also checks
 * access again at each new turn.
 */
export const ProjectChanged = z.object({ project_id: projectIdSchema, change: z.enum(["members", "deleted"]) });
export type ProjectChanged = z.infer<typeof ProjectChanged>;

/** The operations on `agent.project.<operation>`. */
const projectOperations = ["create", "list", "get", "rename", "delete", "members", "member_put", "member_delete", "usage", "budget", "settings", "settings_put", "my_settings", "my_settings_put"] as const;
export type ProjectOperation = (typeof projectOperations)[number];
