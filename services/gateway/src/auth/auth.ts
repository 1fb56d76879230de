import type { NextFunction, Request, Response } from "express";
import { AppError } from "@agent-orchestrator/shared";
import type { GatewayContext } from "../gateway-context.js";

/** The owner of everything a request does when no tokens are configured (a single-user local gateway). */
export const localUser = "local";

/**
 * Requires `Authorization: Bearer <token>` when tokens are configured and records the caller's user
 * name for the routes. Without tokens every caller is the local user. A refusal goes to the router's
 * error handler, which answers it in that API's error shape. Wrong tokens are counted per client address,
 * and an address that sent too many is refused (RATE_LIMITED with retry-after), except for a token that
 * has signed in from there before (auth-throttle.ts).
 */
export function authenticate(context: Pick<GatewayContext, "config" | "authFailures" | "clientAddress">) {
  const tokens = context.config.AUTH_TOKENS;
  return (request: Request, response: Response, next: NextFunction): void => {
    if (!tokens) {
      response.locals["user"] = localUser;
      return next();
    }
    const header = request.headers.authorization;
    if (header === undefined) {
      // a client that has not signed in yet; only a token that was given and is wrong is a guess
      response.set("www-authenticate", 'Bearer realm="agent-orchestrator"');
      return next(new AppError("UNAUTHORIZED", "A valid bearer token is required"));
    }
    const signedIn = context.authFailures.signIn(tokens, context.clientAddress(request), bearerToken(header));
    if (!signedIn.ok) {
      if (signedIn.retryAfterSeconds !== undefined) response.set("retry-after", String(signedIn.retryAfterSeconds));
      else response.set("www-authenticate", 'Bearer realm="agent-orchestrator"');
      return next(signedIn.error);
    }
    response.locals["user"] = signedIn.user;
    next();
  };
}

/** The token of an `Authorization: Bearer <token>` header; any other header as it is (a wrong credential all the same). */
export function bearerToken(header: string): string {
  return /^Bearer\s+(\S+)$/i.exec(header)?.[1] ?? header;
}

export const currentUser = (response: Response): string => String(response.locals["user"] ?? localUser);
