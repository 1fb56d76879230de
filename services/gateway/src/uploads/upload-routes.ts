import { Router, type Request } from "express";
import { z } from "zod";
import { AppError, type AuditPublisher } from "@agent-orchestrator/shared/runtime";
import { FilesImportReply, SourceInfoReply, SourcePutReply, subjects } from "@agent-orchestrator/shared/wire";
import { audited, noteAudit } from "../audit/audited.js";
import { filePathTarget } from "../audit/file-path-target.js";
import { currentUser } from "../auth/auth.js";
import type { GatewayContext } from "../gateway-context.js";
import { callService } from "../nats-call.js";
import { parseInput } from "../http/parse-input.js";
import { bodyDeadline } from "../http/request-deadline.js";
import { getProject, projectSpace, requireWriter } from "../access/project-access.js";
import { spacePath } from "../files/project-file-path.js";
import { MultipartQuery, SpaceUpload, stageBody } from "./space-upload.js";
import type { UploadStaging } from "./upload-staging.js";

const SourceQuery = z.object({ strip: z.string().regex(/^[0-8]$/, "a number of leading folders to drop, 0 to 8").transform(Number).optional() });

/** What an archive upload may be sent as; the tool-runner tells zip from tar.gz by the bytes. */
const archiveTypes = ["application/zip", "application/x-zip-compressed", "application/gzip", "application/x-gzip", "application/x-tar+gzip", "application/octet-stream"];

/**
 * Bringing files into a project (docs/uploads.md): a raw upload (`PUT`, any client, `curl -T`), a multipart
 * upload of several files (the web page), a code snapshot archive, an import of BMAD work from elsewhere (taking
 * them out as a zip is repositories/project-archive-route.ts). Bodies stream into the uploads store, never whole
 * into memory; the tool-runner takes them from there. Mounted before the JSON body parser: these bodies are files.
 */
export function uploadRoutes(context: GatewayContext, { uploads: staging, audit }: { uploads: UploadStaging; audit: AuditPublisher }): Router {
  const router = Router();
  const maxBytes = context.config.UPLOAD_MAX_BYTES;
  const long = { timeoutMs: context.config.UPLOAD_TIMEOUT_MS };
  const receiving = bodyDeadline(context.config.UPLOAD_TIMEOUT_MS);
  const into = new SpaceUpload(context, staging);

  router.put("/api/projects/:id/files/*path", receiving, audited(context, audit, "file_uploaded", filePathTarget), async (request, response) => {
    const path = spacePath(request.params["path"]);
    const user = currentUser(response);
    const space = await projectSpace(context, user, request.params["id"], "write");
    noteAudit(response, { project_id: space.id });
    await into.put(request, response, space, path, user);
  });

  router.post("/api/projects/:id/files", receiving, audited(context, audit, "file_uploaded"), async (request, response) => {
    const { folder } = parseInput(MultipartQuery, request.query, "query");
    const user = currentUser(response);
    const space = await projectSpace(context, user, request.params["id"], "write");
    noteAudit(response, { project_id: space.id });
    await into.multipart(request, response, space, folder, user);
  });

  router.post("/api/projects/:id/source", receiving, audited(context, audit, "snapshot_put"), async (request, response) => {
    const { strip } = parseInput(SourceQuery, request.query, "query");
    requireArchiveType(request);
    const user = currentUser(response);
    const project = await getProject(context, user, request.params["id"]);
    noteAudit(response, { project_id: project.id });
    requireWriter(project);
    const staged = await stageBody(staging, request, response, maxBytes);
    const reply = await callService(context, subjects.files("source"), { project_id: project.id, staged: staged.name, strip: strip ?? 0, author: { user } }, SourcePutReply, long);
    response.status(201).json({ success: true, source: reply.source, skipped: reply.skipped });
  });

  router.get("/api/projects/:id/source", async (request, response) => {
    const project = await getProject(context, currentUser(response), request.params["id"]);
    const reply = await callService(context, subjects.files("source_info"), { project_id: project.id }, SourceInfoReply);
    response.json({ success: true, source: reply.source });
  });

  router.delete("/api/projects/:id/source", audited(context, audit, "snapshot_deleted"), async (request, response) => {
    const project = await getProject(context, currentUser(response), request.params["id"]);
    noteAudit(response, { project_id: project.id });
    requireWriter(project);
    await callService(context, subjects.files("source_delete"), { project_id: project.id }, SourceInfoReply);
    response.json({ success: true, source: null });
  });

  router.post("/api/projects/:id/import", receiving, audited(context, audit, "archive_imported"), async (request, response) => {
    requireArchiveType(request);
    const user = currentUser(response);
    const space = await projectSpace(context, user, request.params["id"], "write");
    const staged = await stageBody(staging, request, response, maxBytes);
    const reply = await callService(context, subjects.files("import"), { space, staged: staged.name, author: { user } }, FilesImportReply, long);
    noteAudit(response, { project_id: space.id, detail: `${reply.files} files, ${reply.bytes} bytes` });
    response.json({ success: true, files: reply.files, bytes: reply.bytes, skipped: reply.skipped });
  });
  return router;
}

function requireArchiveType(request: Request): void {
  const type = (request.headers["content-type"] ?? "application/octet-stream").split(";")[0]?.trim().toLowerCase() ?? "";
  if (!archiveTypes.includes(type)) {
    throw new AppError("BAD_REQUEST", `Send the archive as the raw body with Content-Type application/zip or application/gzip (got ${type || "none"})`);
  }
}
