import type { NextFunction, Request, Response } from "express";
import { AppError } from "@agent-orchestrator/shared";
import type { AuthTokens } from "./auth-tokens.js";
import { sendError } from "./send-error.js";

/** The owner of everything a request does when no tokens are configured (a single-user local gateway). */
export const localUser = "local";

/**
 * Requires `Authorization: Bearer <token>` when tokens are configured and records the caller's user
 * name for the routes. Without tokens every caller is the local user.
 */
export function authenticate(tokens: AuthTokens | undefined) {
  return (request: Request, response: Response, next: NextFunction): void => {
    if (!tokens) {
      response.locals["user"] = localUser;
      return next();
    }
    const header = request.headers.authorization ?? "";
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    const user = match?.[1] === undefined ? undefined : tokens.get(match[1]);
    if (!user) {
      response.set("www-authenticate", 'Bearer realm="agent-orchestrator"');
      return sendError(response, new AppError("UNAUTHORIZED", "A valid bearer token is required"));
    }
    response.locals["user"] = user;
    next();
  };
}

export const currentUser = (response: Response): string => String(response.locals["user"] ?? localUser);
