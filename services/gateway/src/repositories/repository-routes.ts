import { Router, type Request, type Response } from "express";
import { AppError, type AuditPublisher } from "@agent-orchestrator/shared/runtime";
import { RepositoryCloneBody, RepositoryReply, subjects, type ProjectView } from "@agent-orchestrator/shared/wire";
import { getProject } from "../access/project-access.js";
import { audited, noteAudit } from "../audit/audited.js";
import { currentUser } from "../auth/auth.js";
import type { GatewayContext } from "../gateway-context.js";
import { parseInput } from "../http/parse-input.js";
import { bodyDeadline } from "../http/request-deadline.js";
import { callService } from "../nats-call.js";
import type { UploadStaging } from "../uploads/upload-staging.js";
import { jsonBody } from "../http/json-body.js";

const bundleType = "application/x-git-bundle";

/**
 * A project's git repository (docs/repositories.md "What a user does"): `PUT` attaches one from a git bundle (the
 * body, streamed into the uploads store like any upload) or clones one from a remote (`{url, branch?, username?,
 * credential?}`), the owner only; `GET` shows it to any member; `DELETE` detaches it, the owner only. The
 * credential goes to the tool-runner and nowhere else: not into the audit record (which names the URL), a log
 * line or an answer. Mounted before the JSON body parser: a bundle is a file.
 */
export function repositoryRoutes(context: GatewayContext, { uploads, audit }: { uploads: UploadStaging; audit: AuditPublisher }): Router {
  const router = Router();
  const path = "/api/projects/:id/repository";
  const json = jsonBody(context.config.BODY_LIMIT_BYTES);

  // a 1 GB bundle from a slow link takes longer than Node's 300 s for a whole request (http/request-deadline.ts)
  router.put(path, bodyDeadline(context.config.REPOSITORY_IMPORT_TIMEOUT_MS), audited(context, audit, "repository_attached"), json, async (request, response) => {
    const user = currentUser(response);
    const project = await ownedProject(context, request, response);
    const type = (request.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
    let reply: Extract<RepositoryReply, { success: true }>;
    if (type === bundleType) {
      const staged = await stageBundle(uploads, request, response, context.config.REPOSITORY_BUNDLE_MAX_BYTES);
      noteAudit(response, { project_id: project.id, detail: `a bundle of ${staged.size} bytes` });
      reply = await callService(context, subjects.repository("import"), { project_id: project.id, staged: staged.name, user }, RepositoryReply, { timeoutMs: context.config.REPOSITORY_IMPORT_TIMEOUT_MS });
    } else if (type === "application/json") {
      const body = parseInput(RepositoryCloneBody, request.body, "body");
      noteAudit(response, { project_id: project.id, detail: `a clone of ${body.url}${body.branch === undefined ? "" : ` (${body.branch})`}` });
      reply = await callService(context, subjects.repository("clone"), { ...body, project_id: project.id, user }, RepositoryReply, { timeoutMs: context.config.REPOSITORY_IMPORT_TIMEOUT_MS });
    } else {
      throw new AppError("BAD_REQUEST", `Send a git bundle as the body with Content-Type ${bundleType}, or JSON {url, branch?, credential?} (got ${type || "none"})`);
    }
    response.status(201).json({ success: true, repository: reply.repository });
  });

  router.get(path, async (request, response) => {
    const project = await getProject(context, currentUser(response), request.params["id"]);
    const reply = await callService(context, subjects.repository("get"), { project_id: project.id }, RepositoryReply);
    response.json({ success: true, repository: reply.repository });
  });

  router.delete(path, audited(context, audit, "repository_detached"), async (request, response) => {
    const project = await ownedProject(context, request, response);
    await callService(context, subjects.repository("detach"), { project_id: project.id }, RepositoryReply);
    response.json({ success: true, repository: null });
  });
  return router;
}

/** The project of the path when the caller owns it: PROJECT_FORBIDDEN for another member, PROJECT_NOT_FOUND for anyone else. */
async function ownedProject(context: GatewayContext, request: Request, response: Response): Promise<ProjectView> {
  const project = await getProject(context, currentUser(response), request.params["id"]);
  noteAudit(response, { project_id: project.id });
  if (project.role !== "owner") throw new AppError("PROJECT_FORBIDDEN", "Only the project's owner attaches or detaches its repository");
  return project;
}

/**
 * Streams the bundle into the uploads store; a declared length past the limit is refused before a byte is read,
 * a body without one (chunked) once it passes the limit, its staged part removed (case 333).
 */
async function stageBundle(uploads: UploadStaging, request: Request, response: Response, maxBytes: number): Promise<{ name: string; size: number }> {
  const tooLarge = () => new AppError("PAYLOAD_TOO_LARGE", `The bundle is larger than ${maxBytes} bytes (REPOSITORY_BUNDLE_MAX_BYTES)`);
  try {
    if (Number(request.headers["content-length"] ?? Number.NaN) > maxBytes) throw tooLarge();
    return await uploads.stage(request, maxBytes);
  } catch (error) {
    // the rest of a refused body is not read: the connection closes after the answer
    response.set("connection", "close");
    // the uploads store's refusal names the uploads' limit; a bundle has its own
    if (AppError.is(error) && error.code === "PAYLOAD_TOO_LARGE") throw tooLarge();
    throw error;
  }
}
