import { randomUUID } from "node:crypto";
import type { NextFunction, Request, Response } from "express";
import type { Logger } from "@agent-orchestrator/shared/runtime";

const requestIdPattern = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Gives every request an id (the caller's `x-request-id` when it is a plain token), returns it in the
 * response header, and a child logger that puts it on every line.
 */
export function requestContext(logger: Logger) {
  return (request: Request, response: Response, next: NextFunction): void => {
    const given = request.headers["x-request-id"];
    const requestId = typeof given === "string" && requestIdPattern.test(given) ? given : randomUUID();
    response.set("x-request-id", requestId);
    response.locals["requestId"] = requestId;
    response.locals["logger"] = logger.child({ requestId });
    const started = performance.now();
    response.on("finish", () => {
      (response.locals["logger"] as Logger).info(
        { method: request.method, path: request.path, status: response.statusCode, ms: Math.round(performance.now() - started) },
        "request",
      );
    });
    next();
  };
}

/** Headers that keep browsers from sniffing, framing or leaking what we serve. */
export function securityHeaders(_request: Request, response: Response, next: NextFunction): void {
  response.set({
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
    "content-security-policy": "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  });
  next();
}
