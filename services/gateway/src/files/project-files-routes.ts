import { Router } from "express";
import { z } from "zod";
import { AppError, type AuditPublisher } from "@agent-orchestrator/shared/runtime";
import { BranchFilesQuery, FilesChangeReply, FilesListReply, FilesReadReply, FilesRevisionsReply, subjects, type FileAuthor } from "@agent-orchestrator/shared/wire";
import { audited, noteAudit } from "../audit/audited.js";
import { filePathTarget } from "../audit/file-path-target.js";
import { currentUser } from "../auth/auth.js";
import type { GatewayContext } from "../gateway-context.js";
import { callService } from "../nats-call.js";
import { parseInput } from "../http/parse-input.js";
import { projectSpace } from "../access/project-access.js";
import { spacePath } from "./project-file-path.js";
import { sendRawFile } from "./raw-file-response.js";
import type { ContentReader } from "./content-reader.js";
import { sendFileDownload } from "./file-download.js";
import { branchFiles, sendBranchFile } from "./repository-files.js";
import type { StagedBodies } from "./staged-body.js";

const revisionNumber = z.string().regex(/^[1-9][0-9]{0,9}$/, "a revision number (1, 2, …)").transform(Number);

/**
 * `?source=1` lists the code snapshot's files too (read_only), as many as fit one reply (`truncated`); `?branch=`
 * a branch of the project's repository (docs/repositories.md "The files API on a repository").
 */
const ListQuery = BranchFilesQuery.extend({ prefix: z.string().max(1024).optional(), source: z.enum(["0", "1"]).optional() });
/**
 * `?revisions` lists the revisions, `?revision=N` reads one, `?raw` answers with the file's text alone,
 * `?download` sends the latest revision's bytes, any file, as an attachment.
 */
const ReadQuery = BranchFilesQuery.extend({ revision: revisionNumber.optional(), revisions: z.string().optional(), raw: z.string().optional(), download: z.string().optional() });
const RestoreQuery = z.object({ restore: revisionNumber });

/**
 * A project's own files (`{project-root}/…` minus the installed BMAD files): list, read (the latest or
 * an older revision), revisions, delete and restore (uploads are uploads/upload-routes.ts). Every request
 * first asks the orchestrator for the caller's role (a non-member gets 404 like a missing project; a viewer
 * reads only), then the tool-runner, which keeps every change as a new revision. In a project with a git
 * repository, the list and the reads show a branch of it instead (repository-files.ts), and the tool-runner
 * refuses a change of the stored files (REPOSITORY_FILES_READ_ONLY).
 */
export function projectFilesRoutes(context: GatewayContext, { contents, staged, audit }: { contents: ContentReader; staged: StagedBodies; audit: AuditPublisher }): Router {
  const router = Router();

  router.get(
    "/api/projects/:id/files",
    async (request, response) => {
      const { prefix, source, branch } = parseInput(ListQuery, request.query, "query");
      const space = await projectSpace(context, currentUser(response), request.params["id"], "read");
      const shown = await branchFiles(context, space.id, { branch, prefix });
      if (shown !== null) {
        response.json({ success: true, ...shown });
        return;
      }
      const reply = await callService(context, subjects.files("list"), { space, prefix, ...(source === "1" ? { source: true } : {}) }, FilesListReply);
      response.json({ success: true, files: reply.files, bytes: reply.bytes, unservable_names: reply.unservable_names, ...(reply.truncated ? { truncated: true } : {}) });
    },
  );

  router.get(
    "/api/projects/:id/files/*path",
    async (request, response) => {
      const path = spacePath(request.params["path"]);
      const query = parseInput(ReadQuery, request.query, "query");
      if (query.revisions !== undefined && query.revision !== undefined) throw new AppError("VALIDATION_ERROR", "query: give either revisions or revision");
      const space = await projectSpace(context, currentUser(response), request.params["id"], "read");
      if (await sendBranchFile(context, staged, { request, response }, space.id, path, query)) return;
      if (query.download !== undefined) {
        await sendFileDownload(context, contents, response, space, path);
        return;
      }
      if (query.revisions !== undefined) {
        const reply = await callService(context, subjects.files("revisions"), { space, path }, FilesRevisionsReply);
        response.json({ success: true, revisions: reply.revisions });
        return;
      }
      const reply = await callService(context, subjects.files("read"), { space, path, revision: query.revision }, FilesReadReply);
      // curl and scripts want the file itself: `?raw`, or an Accept that prefers text/plain over JSON
      if (query.raw !== undefined || request.accepts(["application/json", "text/plain"]) === "text/plain") {
        sendRawFile(response, path, reply.content, reply.truncated, { "x-file-revision": String(reply.file.revision) });
        return;
      }
      response.json({ success: true, file: reply.file, content: reply.content, truncated: reply.truncated });
    },
  );

  router.delete(
    "/api/projects/:id/files/*path",
    audited(context, audit, "file_deleted", filePathTarget),
    async (request, response) => {
      const path = spacePath(request.params["path"]);
      const user = currentUser(response);
      const space = await projectSpace(context, user, request.params["id"], "write");
      const author: FileAuthor = { user };
      const reply = await callService(context, subjects.files("delete"), { space, path, author }, FilesChangeReply);
      noteAudit(response, { project_id: space.id });
      response.json({ success: true, file: reply.file });
    },
  );

  router.post(
    "/api/projects/:id/files/*path",
    audited(context, audit, "file_restored", filePathTarget),
    async (request, response) => {
      const path = spacePath(request.params["path"]);
      const { restore } = parseInput(RestoreQuery, request.query, "query");
      const user = currentUser(response);
      const space = await projectSpace(context, user, request.params["id"], "write");
      const author: FileAuthor = { user };
      const reply = await callService(context, subjects.files("restore"), { space, path, revision: restore, author }, FilesChangeReply);
      noteAudit(response, { project_id: space.id, detail: `revision ${restore}` });
      response.json({ success: true, file: reply.file });
    },
  );
  return router;
}

