import type { NextFunction, Request, Response } from "express";
import { AppError } from "@agent-orchestrator/shared";
import type { AuthTokens } from "./auth-tokens.js";

/** The owner of everything a request does when no tokens are configured (a single-user local gateway). */
export const localUser = "local";

/**
 * Requires `Authorization: Bearer <token>` when tokens are configured and records the caller's user
 * name for the routes. Without tokens every caller is the local user. A refusal goes to the router's
 * error handler, which answers it in that API's error shape.
 */
export function authenticate(tokens: AuthTokens | undefined) {
  return (request: Request, response: Response, next: NextFunction): void => {
    if (!tokens) {
      response.locals["user"] = localUser;
      return next();
    }
    const user = bearerUser(tokens, request.headers.authorization);
    if (!user) {
      response.set("www-authenticate", 'Bearer realm="agent-orchestrator"');
      return next(new AppError("UNAUTHORIZED", "A valid bearer token is required"));
    }
    response.locals["user"] = user;
    next();
  };
}

/** The user of an `Authorization: Bearer <token>` header, if the token is known. */
export function bearerUser(tokens: AuthTokens, header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)$/i.exec(header ?? "");
  return match?.[1] === undefined ? undefined : tokens.get(match[1]);
}

export const currentUser = (response: Response): string => String(response.locals["user"] ?? localUser);
