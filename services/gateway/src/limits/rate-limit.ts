import type { NextFunction, Request, Response } from "express";
import { currentUser } from "../auth/auth.js";
import type { UserRateLimit } from "./user-rate-limit.js";

/**
 * The per-user request budget (user-rate-limit.ts) as middleware, after authentication: `cost` requests
 * for this one (1, or for `/mcp` one per JSON-RPC message of a batch). Over it: `RATE_LIMITED` with
 * `retry-after`, passed to the router's error handler, so `/api`, `/v1` and `/mcp` each answer it in
 * their own error shape.
 */
export function rateLimit(limit: UserRateLimit, cost: (request: Request) => number = () => 1) {
  return (request: Request, response: Response, next: NextFunction): void => {
    const refused = limit.take(currentUser(response), cost(request));
    if (!refused) return next();
    response.set("retry-after", String(refused.retryAfterSeconds));
    next(refused.error);
  };
}
