import { Router, type Request } from "express";
import type { z } from "zod";
import { type AuditPublisher } from "@agent-orchestrator/shared/runtime";
import {
  ProjectDeleteReply,
  ProjectListReply,
  ProjectMemberBody,
  ProjectMembersReply,
  ProjectNameBody,
  ProjectReply,
  ProjectBudgetBody,
  ProjectUsageReply,
  subjects,
  userNameSchema,
  type ProjectOperation,
} from "@agent-orchestrator/shared/wire";
import { audited, noteAudit } from "../audit/audited.js";
import { currentUser } from "../auth/auth.js";
import type { GatewayContext } from "../gateway-context.js";
import { callService } from "../nats-call.js";
import { parseInput } from "../http/parse-input.js";
import { getProject, resolveProjectId } from "../access/project-access.js";

/**
 * Projects and their members (docs/projects.md). The orchestrator owns the records and every rule (who
 * is a member, what each role may do); the gateway validates the input and names the caller. `default`
 * as `:id` is the caller's personal default project.
 */
export function projectsRoutes(context: GatewayContext, { audit }: { audit: AuditPublisher }): Router {
  const router = Router();
  const ask = <S extends z.ZodType>(operation: ProjectOperation, body: object, schema: S) => callService(context, subjects.projectRequest(operation), body, schema);

  router.post(
    "/api/projects",
    audited(context, audit, "project_created"),
    async (request, response) => {
      const { name } = parseInput(ProjectNameBody, request.body, "body");
      const reply = await ask("create", { user: currentUser(response), name }, ProjectReply);
      noteAudit(response, { project_id: reply.project.id });
      response.status(201).json({ success: true, project: reply.project });
    },
  );

  router.get(
    "/api/projects",
    async (_request, response) => {
      const reply = await ask("list", { user: currentUser(response) }, ProjectListReply);
      response.json({ success: true, projects: reply.projects });
    },
  );

  router.get(
    "/api/projects/:id",
    async (request, response) => {
      response.json({ success: true, project: await getProject(context, currentUser(response), request.params["id"]) });
    },
  );

  router.patch(
    "/api/projects/:id",
    audited(context, audit, "project_renamed"),
    async (request, response) => {
      const user = currentUser(response);
      const { name } = parseInput(ProjectNameBody, request.body, "body");
      const projectId = await resolveProjectId(context, user, request.params["id"]);
      noteAudit(response, { project_id: projectId });
      const reply = await ask("rename", { user, project_id: projectId, name }, ProjectReply);
      response.json({ success: true, project: reply.project });
    },
  );

  router.delete(
    "/api/projects/:id",
    audited(context, audit, "project_deleted"),
    async (request, response) => {
      const user = currentUser(response);
      const projectId = await resolveProjectId(context, user, request.params["id"]);
      noteAudit(response, { project_id: projectId });
      const reply = await ask("delete", { user, project_id: projectId }, ProjectDeleteReply);
      response.json({ success: true, deleted: reply.deleted });
    },
  );

  router.get(
    "/api/projects/:id/members",
    async (request, response) => {
      const user = currentUser(response);
      const projectId = await resolveProjectId(context, user, request.params["id"]);
      const reply = await ask("members", { user, project_id: projectId }, ProjectMembersReply);
      response.json({ success: true, members: reply.members });
    },
  );

  router.put(
    "/api/projects/:id/members/:user",
    audited(context, audit, "member_put", memberTarget),
    async (request, response) => {
      const user = currentUser(response);
      const member = parseInput(userNameSchema, request.params["user"], "user");
      const { role } = parseInput(ProjectMemberBody, request.body, "body");
      const projectId = await resolveProjectId(context, user, request.params["id"]);
      noteAudit(response, { project_id: projectId, detail: role });
      const reply = await ask("member_put", { user, project_id: projectId, member, role }, ProjectMembersReply);
      response.json({ success: true, members: reply.members });
    },
  );

  router.delete(
    "/api/projects/:id/members/:user",
    audited(context, audit, "member_removed", memberTarget),
    async (request, response) => {
      const user = currentUser(response);
      const member = parseInput(userNameSchema, request.params["user"], "user");
      const projectId = await resolveProjectId(context, user, request.params["id"]);
      noteAudit(response, { project_id: projectId });
      const reply = await ask("member_delete", { user, project_id: projectId, member }, ProjectMembersReply);
      response.json({ success: true, members: reply.members });
    },
  );

  // what the project spent, by month and by agent, and its monthly budget (docs/models.md "Cost totals"): any member
  router.get(
    "/api/projects/:id/usage",
    async (request, response) => {
      const user = currentUser(response);
      const projectId = await resolveProjectId(context, user, request.params["id"]);
      const reply = await ask("usage", { user, project_id: projectId }, ProjectUsageReply);
      response.json({ success: true, usage: reply.usage });
    },
  );

  // the project's own monthly budget, or null for BUDGET_PROJECT_MONTHLY: the owner only (docs/models.md "Budgets")
  router.put(
    "/api/projects/:id/budget",
    async (request, response) => {
      const user = currentUser(response);
      const { monthly } = parseInput(ProjectBudgetBody, request.body, "body");
      const projectId = await resolveProjectId(context, user, request.params["id"]);
      const reply = await ask("budget", { user, project_id: projectId, monthly }, ProjectUsageReply);
      response.json({ success: true, usage: reply.usage });
    },
  );
  return router;
}

const memberTarget = (request: Request) => ({ target: `member:${String(request.params["user"])}` });
