import { Router, type NextFunction, type Request, type Response } from "express";
import { AppError, type AuditPublisher, type Logger } from "@agent-orchestrator/shared/runtime";
import { GitProtocolHeader, GitRpcReply, GitService, mayWrite, subjectTokenPattern, subjects, type GitRefUpdate, type ProjectView } from "@agent-orchestrator/shared/wire";
import { getProject } from "../access/project-access.js";
import { currentUser } from "../auth/auth.js";
import type { SignInServices } from "../auth/sign-in-services.js";
import type { GatewayContext } from "../gateway-context.js";
import { refuseCrossSiteWrites } from "../http/cross-site-writes.js";
import { httpStatusByCode, retryAfterSecondsByCode } from "../http/http-status.js";
import { bodyDeadline } from "../http/request-deadline.js";
import { toAppError } from "../http/to-app-error.js";
import { rateLimit } from "../limits/rate-limit.js";
import type { UserRateLimit } from "../limits/user-rate-limit.js";
import { callService } from "../nats-call.js";
import { sendStagedBody } from "../files/staged-body.js";
import type { UploadStaging } from "../uploads/upload-staging.js";
import { readGitRequestBody } from "./git-request-body.js";
import { gitSignIn } from "./git-sign-in.js";
import { StagedResponses } from "./staged-responses.js";

/** The largest fetch request read (a negotiation's `have` lines; git gzips them). */
const fetchRequestMaxBytes = 64 * 1024 * 1024;

/**
 * git's smart HTTP protocol (gitprotocol-http(5); docs/repositories.md "Plain git over HTTP") at
 * `/git/<project-id>.git`: `GET …/info/refs?service=git-upload-pack|git-receive-pack`, `POST …/git-upload-pack`
 * (clone, fetch: protocol versions 0 to 2) and `POST …/git-receive-pack` (push). Signed in like `/api`
 * (git-sign-in.ts), with the project's roles: any member fetches, editors and owners push; a project the caller
 * is not a member of, or that has no repository, is 404. The git work is the tool-runner's, over NATS; bodies
 * travel in the message when small, else through the uploads store. Errors are plain text, which git shows as
 * `remote: …`. Every push is an audit record (`git_pushed`: who, which refs old → new).
 */
export function gitRoutes(context: GatewayContext, services: { auth: SignInServices; requestRate: UserRateLimit; uploads: UploadStaging; audit: AuditPublisher }): Router {
  const { uploads, audit } = services;
  const responses = new StagedResponses(context);
  const long = { timeoutMs: context.config.UPLOAD_TIMEOUT_MS };
  const router = Router();
  // a push's body may be hundreds of MiB: its own bound, not the server's default (http/request-deadline.ts)
  router.use("/git", bodyDeadline(context.config.UPLOAD_TIMEOUT_MS), gitSignIn(context, services.auth), rateLimit(services.requestRate));

  router.get("/git/:repository/info/refs", async (request, response) => {
    const parsed = GitService.safeParse(request.query["service"]);
    if (!parsed.success) throw new AppError("BAD_REQUEST", "Only git's smart HTTP protocol is served (git 1.6.6 or later sends ?service=)");
    const service = parsed.data;
    try {
      const project = await gitProject(context, currentUser(response), request.params["repository"], service);
      const reply = await callService(context, subjects.git("advertise"), { project_id: project.id, service, ...protocolOf(request) }, GitRpcReply, long);
      response.set({ "content-type": `application/x-${service}-advertisement`, "cache-control": "no-cache, max-age=0, must-revalidate" });
      await sendStagedBody(response, reply.body, responses);
    } catch (error) {
      if (service === "git-receive-pack") recordPush(context, audit, request, response, { error });
      throw error;
    }
  });

  // a browser keeps Basic credentials and sends them itself, so a push signed in so must not come from another
  // site's page (git sends no Origin); a bearer token is never sent by a browser on its own
  const crossSite = refuseCrossSiteWrites(context.config.ALLOWED_ORIGINS);
  const refuseCrossSiteBasic = (request: Request, response: Response, next: NextFunction) => (/^Basic\s/i.test(request.headers.authorization ?? "") ? crossSite(request, response, next) : next());

  router.post("/git/:repository/:service", refuseCrossSiteBasic, async (request, response) => {
    const parsed = GitService.safeParse(request.params["service"]);
    if (!parsed.success) throw new AppError("NOT_FOUND", "No such route");
    const service = parsed.data;
    requireContentType(request, `application/x-${service}-request`);
    const push = service === "git-receive-pack";
    let recorded = false;
    try {
      const user = currentUser(response);
      const project = await gitProject(context, user, request.params["repository"], service);
      const { body, cutAt } = await readGitRequestBody(request, uploads, { maxBytes: push ? context.config.GIT_PUSH_MAX_BYTES : fetchRequestMaxBytes, cut: push });
      // the rest of a body cut at its limit is not read: the connection closes after the answer
      if (cutAt !== undefined) response.set("connection", "close");
      const operation = push ? "receive_pack" : "upload_pack";
      const reply = await callService(context, subjects.git(operation), { project_id: project.id, service, body, user, ...protocolOf(request), ...(cutAt === undefined ? {} : { cut_at: cutAt }) }, GitRpcReply, long);
      if (push) {
        recordPush(context, audit, request, response, { project: project.id, updates: reply.updates ?? [] });
        recorded = true;
      }
      response.set({ "content-type": `application/x-${service}-result`, "cache-control": "no-cache, max-age=0, must-revalidate" });
      await sendStagedBody(response, reply.body, responses);
    } catch (error) {
      if (push && !recorded) recordPush(context, audit, request, response, { error });
      throw error;
    }
  });

  router.use("/git", (error: unknown, _request: Request, response: Response, _next: NextFunction) => {
    sendGitError(response, toAppError(error, response.locals["logger"] as Logger));
  });
  return router;
}

/**
 * The project `<id>.git` names, for a caller whose role allows `service`: PROJECT_NOT_FOUND (404) for a name that
 * is not a project's or a project the caller is not a member of, PROJECT_FORBIDDEN (403) for a viewer's push.
 */
async function gitProject(context: GatewayContext, user: string, repository: string | string[] | undefined, service: GitService): Promise<ProjectView> {
  const id = typeof repository === "string" ? /^(.+)\.git$/.exec(repository)?.[1] : undefined;
  if (id === undefined) throw new AppError("PROJECT_NOT_FOUND", "Project not found");
  const project = await getProject(context, user, id);
  if (service === "git-receive-pack" && !mayWrite(project.role)) throw new AppError("PROJECT_FORBIDDEN", `You are a ${project.role} of this project: viewers fetch, editors and owners push`);
  return project;
}

/** The client's `Git-Protocol` header (version 2 for fetches), passed to git as GIT_PROTOCOL. */
function protocolOf(request: Request): { protocol?: string } {
  const header = GitProtocolHeader.safeParse(request.headers["git-protocol"]);
  return header.success && header.data !== "" ? { protocol: header.data } : {};
}

function requireContentType(request: Request, expected: string): void {
  const type = (request.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== expected) throw new AppError("BAD_REQUEST", `A git request is sent as ${expected}`);
}

/** A git error as plain text, which git prints as `remote: …` (a 401 keeps the Basic challenge set before). */
function sendGitError(response: Response, error: AppError): void {
  response.locals["errorCode"] = error.code;
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const retryAfter = retryAfterSecondsByCode[error.code];
  if (retryAfter !== undefined && !response.get("retry-after")) response.set("retry-after", String(retryAfter));
  response.status(httpStatusByCode[error.code]).type("text/plain; charset=utf-8").send(`${error.message}\n`);
}

/**
 * The audit record of a push (docs/audit.md `git_pushed`): its refs old → new with what became of each, `ok` when
 * at least one moved, `refused` when none did or the push was refused before (a viewer, a limit).
 */
function recordPush(
  context: GatewayContext,
  audit: AuditPublisher,
  request: Request,
  response: Response,
  what: { project: string; updates: readonly GitRefUpdate[] } | { error: unknown },
): void {
  const actor = currentUser(response);
  const base = { actor, action: "git_pushed" as const, client_address: context.clientAddress(request) };
  // the project the path names, when it can be one (it is part of the record's subject)
  const named = /^(.+)\.git$/.exec(String(request.params["repository"] ?? ""))?.[1];
  const id = named !== undefined && subjectTokenPattern.test(named) ? named : undefined;
  if ("error" in what) {
    const code = AppError.is(what.error) ? what.error.code : "INTERNAL";
    void audit.record({ ...base, ...(id === undefined ? {} : { project_id: id }), outcome: code === "INTERNAL" || code === "SERVICE_UNAVAILABLE" ? "failed" : "refused", detail: code });
    return;
  }
  const moved = what.updates.filter((update) => update.status === "ok");
  const refused = what.updates.filter((update) => update.status !== "ok");
  if (what.updates.length === 0) return;
  void audit.record({
    ...base,
    project_id: what.project,
    outcome: moved.length > 0 ? "ok" : "refused",
    // a refused name may hold any byte: shown printable only
    target: what.updates.map((update) => `${update.ref.replace(/[^\x21-\x7e]/g, "?")} ${update.old}→${update.new}`).join(", "),
    detail: refused.length === 0 ? `${moved.length} refs moved` : `${moved.length} refs moved, ${refused.length} refused: ${refused[0]?.status ?? ""}`,
  });
}
