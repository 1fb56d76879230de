import { Router } from "express";
import { AppError, auditActorToken } from "@agent-orchestrator/shared/runtime";
import { AuditQuery, jetStreamNames, subjects } from "@agent-orchestrator/shared/wire";
import { currentUser } from "../auth/auth.js";
import type { GatewayContext } from "../gateway-context.js";
import { parseInput } from "../http/parse-input.js";
import { getProject } from "../access/project-access.js";
import { readAuditPage } from "./audit-reader.js";

/**
 * `GET /api/projects/:id/audit?since=&until=&actor=&limit=&cursor=`: the project's audit records, oldest first,
 * for its owner only (docs/audit.md). A member who is not the owner gets PROJECT_FORBIDDEN, anyone else
 * PROJECT_NOT_FOUND, as on the other owner-only routes. `actor` is a subject filter, so it costs no scan.
 */
export function auditRoutes(context: GatewayContext): Router {
  const router = Router();
  router.get("/api/projects/:id/audit", async (request, response) => {
    const query = parseInput(AuditQuery, request.query, "query");
    const project = await getProject(context, currentUser(response), request.params["id"]);
    if (project.role !== "owner") throw new AppError("PROJECT_FORBIDDEN", "Only the project's owner reads its audit log");
    const filter = context.subjectPrefix + subjects.audit(project.id, query.actor === undefined ? "*" : auditActorToken(query.actor), "*");
    response.json(await readAuditPage(context, jetStreamNames(context.subjectPrefix).auditStream, filter, query));
  });
  return router;
}
