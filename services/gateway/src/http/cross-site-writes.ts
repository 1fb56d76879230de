import type { IncomingMessage } from "node:http";
import type { NextFunction, Request, Response } from "express";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { isAllowedOrigin } from "./origin-check.js";

/** Methods a browser may send from any page without changing anything here. */
const safeMethods = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Where a browser says a request comes from: its `Origin`, else the origin of its `Referer` (a `Referer` that is
 * not a URL is kept as it is, so it is foreign); undefined when it carries neither, as programs other than
 * browsers do.
 */
export function browserOrigin(request: IncomingMessage): string | undefined {
  const { origin, referer } = request.headers;
  if (origin !== undefined) return origin;
  if (referer === undefined) return undefined;
  try {
    return new URL(referer).origin;
  } catch {
    return referer;
  }
}

/**
 * Refuses (CSRF_REFUSED) a state-changing request whose `Origin` (else `Referer`) is present and neither the
 * gateway's own nor in `allowed`. Without sign-in every caller is the local user, so another site's page the
 * developer visits could otherwise post a form or a `fetch` of a CORS-simple type (a multipart upload, an import,
 * a code snapshot) to 127.0.0.1 and plant files the agents read (docs/security.md "Gateway"). A request with
 * neither header (curl, SDKs) is no browser's and passes.
 */
export function refuseCrossSiteWrites(allowed: readonly string[]) {
  return (request: Request, _response: Response, next: NextFunction): void => {
    const origin = safeMethods.has(request.method) ? undefined : browserOrigin(request);
    if (origin === undefined || isAllowedOrigin(origin, request.headers.host, allowed)) return next();
    next(new AppError("CSRF_REFUSED", "A request that changes something must come from the gateway's own page (or an origin in ALLOWED_ORIGINS), not from another site's"));
  };
}
