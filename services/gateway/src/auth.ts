import type { IncomingMessage } from "node:http";
import type { NextFunction, Request, Response } from "express";
import { AppError } from "@agent-orchestrator/shared";
import type { AuthThrottle } from "./auth-throttle.js";
import type { AuthTokens } from "./auth-tokens.js";

/** The owner of everything a request does when no tokens are configured (a single-user local gateway). */
export const localUser = "local";

/**
 * Requires `Authorization: Bearer <token>` when tokens are configured and records the caller's user
 * name for the routes. Without tokens every caller is the local user. A refusal goes to the router's
 * error handler, which answers it in that API's error shape. An address that sent too many wrong tokens
 * is refused (RATE_LIMITED with retry-after) before its token is even looked at.
 */
export function authenticate(tokens: AuthTokens | undefined, throttle: AuthThrottle) {
  return (request: Request, response: Response, next: NextFunction): void => {
    if (!tokens) {
      response.locals["user"] = localUser;
      return next();
    }
    const address = clientAddress(request);
    const wait = throttle.retryAfterSeconds(address);
    if (wait > 0) {
      response.set("retry-after", String(wait));
      return next(new AppError("RATE_LIMITED", "Too many wrong tokens from this address; try again later"));
    }
    const user = bearerUser(tokens, request.headers.authorization);
    if (!user) {
      // a missing token is a client that has not signed in yet; a wrong one is a guess
      if (request.headers.authorization !== undefined) throttle.fail(address);
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

/** The peer's address: the socket's, never a header a client could set. */
export const clientAddress = (request: IncomingMessage): string => request.socket.remoteAddress ?? "unknown";

export const currentUser = (response: Response): string => String(response.locals["user"] ?? localUser);
