import { Router } from "express";
import { AppError, type AuditPublisher } from "@agent-orchestrator/shared/runtime";
import { RepositoryPushBody, RepositoryPushReply, subjects } from "@agent-orchestrator/shared/wire";
import { getProject } from "../access/project-access.js";
import { audited, noteAudit } from "../audit/audited.js";
import { currentUser } from "../auth/auth.js";
import type { GatewayContext } from "../gateway-context.js";
import { parseInput } from "../http/parse-input.js";
import { callService } from "../nats-call.js";
import { jsonBody } from "../http/json-body.js";

/**
 * `POST /api/projects/:id/repository/push {branch}` (docs/repositories.md "Pushing to the remote"): the owner
 * pushes a branch to the remote the repository was cloned from; another member is refused (403), anyone else does
 * not see the project (404). A tool-runner pushes with the credential, which only it can read; the answer and the
 * audit record name the branch, its commit and the remote's URL, never the credential.
 */
export function pushRoute(context: GatewayContext, { audit }: { audit: AuditPublisher }): Router {
  const router = Router();
  const json = jsonBody(context.config.BODY_LIMIT_BYTES);

  router.post("/api/projects/:id/repository/push", audited(context, audit, "repository_pushed"), json, async (request, response) => {
    const user = currentUser(response);
    const project = await getProject(context, user, request.params["id"]);
    noteAudit(response, { project_id: project.id });
    if (project.role !== "owner") throw new AppError("PROJECT_FORBIDDEN", "Only the project's owner pushes its repository to the remote");
    const { branch } = parseInput(RepositoryPushBody, request.body, "body");
    noteAudit(response, { target: branch });
    const waitMs = context.config.UPLOAD_TIMEOUT_MS;
    const reply = await callService(context, subjects.repository("push"), { project_id: project.id, branch, user, wait_ms: waitMs }, RepositoryPushReply, { timeoutMs: waitMs });
    const { success, ...pushed } = reply;
    noteAudit(response, { detail: `${pushed.pushed === true ? "pushed" : "up to date"}: ${pushed.commit} to ${pushed.remote.url}` });
    response.json({ success, ...pushed });
  });
  return router;
}
