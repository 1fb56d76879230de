import type { NextFunction, Request, Response } from "express";
import { type AuditEntry, type AuditPublisher } from "@agent-orchestrator/shared/runtime";
import { subjectTokenPattern, type AuditAction, type AuditOutcome } from "@agent-orchestrator/shared/wire";
import { currentUser } from "../auth/auth.js";
import type { GatewayContext } from "../gateway-context.js";
import { defaultProjectAlias } from "../access/project-access.js";

/** What a route learns while it acts and the record should name: the project `default` stood for, a new id, a path. */
export type AuditNote = Partial<Pick<AuditEntry, "project_id" | "target" | "detail">>;

/** Adds to the record of the act this request is doing (audited below). */
export function noteAudit(response: Response, note: AuditNote): void {
  response.locals["audit"] = { ...(response.locals["audit"] as AuditNote | undefined), ...note };
}

/** ok below 400; refused for the caller's errors (no such project for them, not their role, a limit); failed for the server's, or a client gone mid-act. */
export function outcomeOf(status: number, finished: boolean): AuditOutcome {
  if (!finished || status >= 500) return "failed";
  return status >= 400 ? "refused" : "ok";
}

/**
 * Records the request's act in the audit log once its answer has gone out (docs/audit.md), whatever the answer:
 * a refusal (a viewer deleting a file, a non-owner deleting the project) is recorded with outcome `refused` and
 * the error code as its detail. The project is the `:id` of the path unless the route noted the one `default`
 * stood for; `describe` adds what the path says (a file, a member). Recording never delays nor fails the answer.
 */
export function audited(
  context: Pick<GatewayContext, "clientAddress">,
  audit: AuditPublisher,
  action: AuditAction,
  describe: (request: Request) => AuditNote = () => ({}),
) {
  return (request: Request, response: Response, next: NextFunction): void => {
    // read now: express puts back the router's own params when an error leaves the route
    const projectParam = request.params["id"];
    const fromPath = typeof projectParam === "string" && projectParam !== defaultProjectAlias && subjectTokenPattern.test(projectParam) ? projectParam : undefined;
    const described = describe(request);
    // and the address: once the answer is gone, the request's socket may be too (request.socket is null then)
    const clientAddress = context.clientAddress(request);
    response.once("close", () => {
      const note = response.locals["audit"] as AuditNote | undefined;
      const outcome = outcomeOf(response.statusCode, response.writableFinished);
      const errorCode = response.locals["errorCode"] as string | undefined;
      void audit.record({
        actor: currentUser(response),
        action,
        project_id: fromPath,
        client_address: clientAddress,
        outcome,
        ...described,
        ...note,
        ...(outcome === "ok" ? {} : { detail: errorCode ?? (response.writableFinished ? `HTTP ${response.statusCode}` : "client went away") }),
      });
    });
    next();
  };
}
