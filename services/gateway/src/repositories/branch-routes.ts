import { Router } from "express";
import { AppError, type AuditPublisher } from "@agent-orchestrator/shared/runtime";
import {
  BranchCommitsQuery,
  BranchCommitsReply,
  BranchName,
  ChatChangesQuery,
  ChatChangesReply,
  mayWrite,
  subjects,
} from "@agent-orchestrator/shared/wire";
import { getProject } from "../access/project-access.js";
import { checkedSessionId, sessionAccess } from "../access/session-access.js";
import { audited, noteAudit } from "../audit/audited.js";
import { currentUser } from "../auth/auth.js";
import type { GatewayContext } from "../gateway-context.js";
import { parseInput } from "../http/parse-input.js";
import { callService } from "../nats-call.js";
import { chatTreeOf } from "./chat-branch.js";

/**
 * A repository's branches and a chat's work (docs/repositories.md "A chat's work"): a branch's commits for any
 * member; a chat's changes since it started for whoever may read the chat; the discard of its uncommitted changes
 * for the project's editors and owner, refused while its turn runs or waits for a decision. The tool-runner reads the repository.
 */
export function branchRoutes(context: GatewayContext, { audit }: { audit: AuditPublisher }): Router {
  const router = Router();

  // a branch's name holds slashes (`chat/<id>`): every segment between `branches/` and `/commits`
  router.get("/api/projects/:id/repository/branches/*branch/commits", async (request, response) => {
    const project = await getProject(context, currentUser(response), request.params["id"]);
    const segments = request.params["branch"];
    const branch = parseInput(BranchName, Array.isArray(segments) ? segments.join("/") : segments, "branch");
    const query = parseInput(BranchCommitsQuery, request.query, "query");
    const reply = await callService(context, subjects.repository("commits"), { project_id: project.id, branch, limit: query.limit, skip: query.skip }, BranchCommitsReply);
    response.json(reply);
  });

  router.get("/api/sessions/:id/changes", async (request, response) => {
    const session = await sessionAccess(context, request.params["id"], currentUser(response));
    const { path } = parseInput(ChatChangesQuery, request.query, "query");
    const reply = await callService(context, subjects.repository("changes"), { ...chatTreeOf(session), ...(path === undefined ? {} : { path }) }, ChatChangesReply);
    response.json({ success: true, changes: reply.changes });
  });

  router.post("/api/sessions/:id/changes/discard", audited(context, audit, "changes_discarded", (request) => ({ target: String(request.params["id"]).slice(0, 128) })), async (request, response) => {
    const user = currentUser(response);
    // the path's id is a chat's, not a project's: the record names the chat's project once it is known
    noteAudit(response, { project_id: undefined });
    const session = await sessionAccess(context, checkedSessionId(request.params["id"]), user);
    noteAudit(response, { project_id: session.project_id });
    const project = await getProject(context, user, session.project_id);
    if (!mayWrite(project.role)) throw new AppError("PROJECT_FORBIDDEN", `A ${project.role} of this project cannot discard a chat's changes`);
    // a turn paused for a decision is still under way: the call it waits on was asked about these files
    if (session.status === "running" || session.status === "awaiting_approval") {
      throw new AppError("SESSION_BUSY", "The chat's turn is running or waits for a decision on a tool call; discard its changes once it has ended");
    }
    const reply = await callService(context, subjects.repository("discard"), { ...chatTreeOf(session), user }, ChatChangesReply);
    if (reply.changes === null) throw new AppError("NOT_FOUND", "The project has no repository");
    response.json({ success: true, changes: reply.changes });
  });
  return router;
}
