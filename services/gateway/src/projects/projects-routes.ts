import { Router } from "express";
import type { z } from "zod";
import {
  ProjectDeleteReply,
  ProjectListReply,
  ProjectMemberBody,
  ProjectMembersReply,
  ProjectNameBody,
  ProjectReply,
  subjects,
  userNameSchema,
  type ProjectOperation,
} from "@agent-orchestrator/shared";
import { currentUser } from "../auth/auth.js";
import type { GatewayContext } from "../gateway-context.js";
import { callService } from "../nats-call.js";
import { parseInput } from "../http/parse-input.js";
import { getProject, resolveProjectId } from "./project-access.js";

/**
 * Projects and their members (docs/projects.md). The orchestrator owns the records and every rule (who
 * is a member, what each role may do); the gateway validates the input and names the caller. `default`
 * as `:id` is the caller's personal default project.
 */
export function projectsRoutes(context: GatewayContext): Router {
  const router = Router();
  const ask = <S extends z.ZodType>(operation: ProjectOperation, body: object, schema: S) => callService(context, subjects.projectRequest(operation), body, schema);

  router.post(
    "/api/projects",
    async (request, response) => {
      const { name } = parseInput(ProjectNameBody, request.body, "body");
      const reply = await ask("create", { user: currentUser(response), name }, ProjectReply);
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
    async (request, response) => {
      const user = currentUser(response);
      const { name } = parseInput(ProjectNameBody, request.body, "body");
      const projectId = await resolveProjectId(context, user, request.params["id"]);
      const reply = await ask("rename", { user, project_id: projectId, name }, ProjectReply);
      response.json({ success: true, project: reply.project });
    },
  );

  router.delete(
    "/api/projects/:id",
    async (request, response) => {
      const user = currentUser(response);
      const projectId = await resolveProjectId(context, user, request.params["id"]);
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
    async (request, response) => {
      const user = currentUser(response);
      const member = parseInput(userNameSchema, request.params["user"], "user");
      const { role } = parseInput(ProjectMemberBody, request.body, "body");
      const projectId = await resolveProjectId(context, user, request.params["id"]);
      const reply = await ask("member_put", { user, project_id: projectId, member, role }, ProjectMembersReply);
      response.json({ success: true, members: reply.members });
    },
  );

  router.delete(
    "/api/projects/:id/members/:user",
    async (request, response) => {
      const user = currentUser(response);
      const member = parseInput(userNameSchema, request.params["user"], "user");
      const projectId = await resolveProjectId(context, user, request.params["id"]);
      const reply = await ask("member_delete", { user, project_id: projectId, member }, ProjectMembersReply);
      response.json({ success: true, members: reply.members });
    },
  );
  return router;
}
