import { Router, type Response } from "express";
import { z } from "zod";
import type { AuditPublisher, Logger } from "@agent-orchestrator/shared/runtime";
import { BranchArchiveReply, subjects, type ProjectView } from "@agent-orchestrator/shared/wire";
import { getProject } from "../access/project-access.js";
import { audited, noteAudit } from "../audit/audited.js";
import { currentUser } from "../auth/auth.js";
import type { ContentReader } from "../files/content-reader.js";
import { sendStagedBody, type StagedBodies } from "../files/staged-body.js";
import type { GatewayContext } from "../gateway-context.js";
import { parseInput } from "../http/parse-input.js";
import { callService } from "../nats-call.js";
import { archiveName, projectArchive } from "../uploads/project-archive.js";

const ArchiveQuery = z.object({ source: z.enum(["0", "1"]).optional() });

/** A branch's zip in transit, as a tool-runner answers for a project with a repository. */
type BranchZip = NonNullable<Extract<BranchArchiveReply, { success: true }>["archive"]>;

/**
 * `GET /api/projects/:id/archive`, any member: one question to a tool-runner tells which zip the project has. With a
 * git repository (docs/repositories.md "The overview, resources and archive"), the default branch's last commit,
 * its files as the files API lists them, made by a tool-runner and streamed through the uploads store at the
 * client's pace; the branch and the commit are in the file name and in `x-repository-branch` /
 * `x-repository-commit`, and `source` is not read. Without one (docs/uploads.md "Export and import"), the project's
 * own files, with the code snapshot's when `source=1`.
 */
export function projectArchiveRoute(context: GatewayContext, { contents, staged, audit }: { contents: ContentReader; staged: StagedBodies; audit: AuditPublisher }): Router {
  const router = Router();

  router.get("/api/projects/:id/archive", audited(context, audit, "archive_exported"), async (request, response) => {
    const project = await getProject(context, currentUser(response), request.params["id"]);
    noteAudit(response, { project_id: project.id });
    const reply = await callService(context, subjects.repository("archive"), { project_id: project.id }, BranchArchiveReply, { timeoutMs: context.config.UPLOAD_TIMEOUT_MS });
    if (reply.archive !== null) {
      await sendBranchArchive(response, staged, project, reply.archive);
      return;
    }
    const { source } = parseInput(ArchiveQuery, request.query, "query");
    if (source === "1") noteAudit(response, { detail: "with the code snapshot" });
    await projectArchive(context, contents, response, { project, source: source === "1" });
  });
  return router;
}

async function sendBranchArchive(response: Response, staged: StagedBodies, project: ProjectView, { body, branch, commit }: BranchZip): Promise<void> {
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
}
