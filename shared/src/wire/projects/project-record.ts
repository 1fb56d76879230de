import { z } from "zod";
import { getOwn } from "../get-own.js";
import { givenName } from "../bidi-format.js";
import { subjectTokenPattern } from "../subjects.js";

/**
 * A member's role in a project (docs/projects.md "What a project is"): the owner manages the project and its
 * members; an editor chats, uploads and writes; a viewer reads files, revisions and chats and watches turns.
 */
export const ProjectRole = z.enum(["owner", "editor", "viewer"]);
export type ProjectRole = z.infer<typeof ProjectRole>;

/** The roles an owner may give a member; there is one owner, the project's creator. */
export const MemberRole = z.enum(["editor", "viewer"]);
export type MemberRole = z.infer<typeof MemberRole>;

export const projectIdSchema = z.string().regex(subjectTokenPattern);
export const userNameSchema = z.string().min(1).max(128);
const projectNameSchema = z.string().trim().min(1).max(200);
/** A name given to a project (created or renamed): no bidi format character. A name stored before is read as it is. */
export const newProjectName = givenName(200);

/**
 * A project as stored in the `projects` bucket under `project.<id>`, updated by compare-and-set. `personal`
 * marks a user's default project, made on first use (`default.<user>` names it).
 */
export const ProjectRecord = z.object({
  id: projectIdSchema,
  name: projectNameSchema,
  owner: userNameSchema,
  members: z.record(z.string(), MemberRole),
  personal: z.boolean(),
  /** the owner's own monthly budget, in place of BUDGET_PROJECT_MONTHLY (docs/models.md "Budgets"); absent: the default */
  monthly_budget: z.number().nonnegative().optional(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type ProjectRecord = z.infer<typeof ProjectRecord>;

/** A project as a member sees it: with the caller's own role. */
export const ProjectView = z.object({
  id: z.string(),
  name: z.string(),
  owner: z.string(),
  role: ProjectRole,
  personal: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type ProjectView = z.infer<typeof ProjectView>;

/** One member of a project with their role (the owner is listed too). */
export const ProjectMember = z.object({ user: z.string(), role: ProjectRole });
export type ProjectMember = z.infer<typeof ProjectMember>;

/** The caller's role in `project`, or undefined when they are not a member. */
export function roleOf(project: ProjectRecord, user: string): ProjectRole | undefined {
  if (project.owner === user) return "owner";
  return getOwn(project.members, user);
}

/** What each role may do (docs/projects.md "What a project is"). */
export function mayWrite(role: ProjectRole | undefined): boolean {
  return role === "owner" || role === "editor";
}

export function toProjectView(project: ProjectRecord, role: ProjectRole): ProjectView {
  const { id, name, owner, personal, created_at, updated_at } = project;
  return { id, name, owner, role, personal, created_at, updated_at };
}
