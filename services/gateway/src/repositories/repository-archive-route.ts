import { Router } from "express";
import type { AuditPublisher, Logger } from "@agent-orchestrator/shared/runtime";
import { BranchArchiveReply, subjects } from "@agent-orchestrator/shared/wire";
import { getProject } from "../access/project-access.js";
import { audited, noteAudit } from "../audit/audited.js";
import { currentUser } from "../auth/auth.js";
import { sendStagedBody, type StagedBodies } from "../files/staged-body.js";
import type { GatewayContext } from "../gateway-context.js";
import { callService } from "../nats-call.js";
import { archiveName } from "../uploads/project-archive.js";

/**
 * `GET /api/projects/:id/archive` of a project with a git repository (docs/repositories.md "The files API on a
 * repository"): the default branch's last commit as a zip, its files as the files API lists them, made by a
 * tool-runner and streamed through the uploads store at the client's pace; the branch and the commit are in the
 * file name and in `x-repository-branch` / `x-repository-commit`. Any member. A project without a repository, and a
 * caller the project refuses, go on to the stored files' export (uploads/upload-routes.ts), which answers and audits
 * as before.
 */
export function repositoryArchiveRoute(context: GatewayContext, { staged, audit }: { staged: StagedBodies; audit: AuditPublisher }): Router {
  const router = Router();
  const record = audited(context, audit, "archive_exported");

  router.get("/api/projects/:id/archive", async (request, response, next) => {
    const project = await getProject(context, currentUser(response), request.params["id"]).catch(() => undefined);
    if (!project) {
      next();
      return;
    }
    // a project may get its repository between the two questions: the archive answers for what it found
    const reply = await callService(context, subjects.repository("archive"), { project_id: project.id }, BranchArchiveReply, { timeoutMs: context.config.UPLOAD_TIMEOUT_MS }).catch((error: unknown) => ({ failed: error }));
    if ("success" in reply && reply.archive === null) {
      next();
      return;
    }
    record(request, response, () => undefined);
    noteAudit(response, { project_id: project.id });
    if ("failed" in reply) throw reply.failed;
    const { body, branch, commit } = reply.archive as NonNullable<typeof reply.archive>;
    noteAudit(response, { detail: `branch ${branch} at ${commit}` });
    const fileName = `${archiveName(project)}-${branch.replace(/[^A-Za-z0-9._-]+/g, "-")}-${commit.slice(0, 12)}.zip`;
    response.status(200).set({
      "content-type": "application/zip",
      "content-disposition": `attachment; filename="${fileName}"`,
      "cache-control": "no-store",
      "x-repository-branch": branch,
      "x-repository-commit": commit,
    });
    try {
      await sendStagedBody(response, body, staged);
    } catch (error) {
      // after the first byte the status cannot change: the zip is cut, and the client sees it broken
      (response.locals["logger"] as Logger).error({ err: error, project_id: project.id }, "repository archive cut short");
      response.destroy();
    }
  });
  return router;
}
