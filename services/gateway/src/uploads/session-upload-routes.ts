import { Router, type Response } from "express";
import { AppError, type AuditPublisher } from "@agent-orchestrator/shared/runtime";
import type { FileSpaceRef } from "@agent-orchestrator/shared/wire";
import { audited, noteAudit } from "../audit/audited.js";
import { filePathTarget } from "../audit/file-path-target.js";
import { currentUser } from "../auth/auth.js";
import type { GatewayContext } from "../gateway-context.js";
import { parseInput } from "../http/parse-input.js";
import { bodyDeadline } from "../http/request-deadline.js";
import { getProject, requireWriter } from "../access/project-access.js";
import { sessionAccess } from "../access/session-access.js";
import { spacePath } from "../files/project-file-path.js";
import { MultipartQuery, SpaceUpload } from "./space-upload.js";
import type { UploadStaging } from "./upload-staging.js";

/**
 * Uploads into a chat's own scratch space (`{session-folder}`, docs/uploads.md "A large file for a chat"): a file
 * too large to send inline, attached to the chat's next message as `{path, folder: "session"}`. The way a project
 * upload goes (space-upload.ts), with the chat's quota (SESSION_MAX_*). Mounted before the JSON body parser.
 * The route's parameter is `:session`, not `:id`: the audit record takes `:id` as a project's id.
 */
export function sessionUploadRoutes(context: GatewayContext, { uploads, audit }: { uploads: UploadStaging; audit: AuditPublisher }): Router {
  const router = Router();
  const receiving = bodyDeadline(context.config.UPLOAD_TIMEOUT_MS);
  const into = new SpaceUpload(context, uploads);

  router.put("/api/sessions/:session/files/*path", receiving, audited(context, audit, "file_uploaded", filePathTarget), async (request, response) => {
    const path = spacePath(request.params["path"]);
    const user = currentUser(response);
    const space = await chatSpace(context, response, user, request.params["session"]);
    await into.put(request, response, space, path, user);
  });

  router.post("/api/sessions/:session/files", receiving, audited(context, audit, "file_uploaded"), async (request, response) => {
    const { folder } = parseInput(MultipartQuery, request.query, "query");
    const user = currentUser(response);
    const space = await chatSpace(context, response, user, request.params["session"]);
    await into.multipart(request, response, space, folder, user, ` into chat ${space.id}`);
  });
  return router;
}

/**
 * The scratch space of a chat `user` may add files to: one they can see (else SESSION_NOT_FOUND, as for a missing
 * chat), in a project where they may write (a viewer: PROJECT_FORBIDDEN), and their own, as only the chat's owner
 * runs the turns that would read them.
 */
async function chatSpace(context: GatewayContext, response: Response, user: string, id: string | string[] | undefined): Promise<FileSpaceRef> {
  const session = await sessionAccess(context, id, user);
  noteAudit(response, { project_id: session.project_id, detail: `chat ${session.id}` });
  requireWriter(await getProject(context, user, session.project_id));
  if (session.owner !== user) throw new AppError("PROJECT_FORBIDDEN", `Only the chat's owner, ${session.owner}, adds files to its scratch space; start a chat of your own in this project`);
  return { kind: "session", id: session.id };
}
