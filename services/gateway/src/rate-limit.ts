import type { NextFunction, Request, Response } from "express";
import { AppError } from "@agent-orchestrator/shared";
import { currentUser } from "./auth.js";

/**
 * A token bucket per user (per gateway replica): `perMinute` requests a minute, refilled continuously,
 * with bursts up to the same number. Over it: the error `RATE_LIMITED` with `retry-after`, passed to
 * the router's error handler, so `/api` and `/v1` each answer it in their own error shape. One limiter is
 * shared by every API, so a user's budget is the same whichever door they use.
 */
export function rateLimit(perMinute: number, now: () => number = Date.now) {
  const buckets = new Map<string, { tokens: number; updated: number }>();
  const refillPerMs = perMinute / 60_000;
  return (_request: Request, response: Response, next: NextFunction): void => {
    const user = currentUser(response);
    const time = now();
    const bucket = buckets.get(user) ?? { tokens: perMinute, updated: time };
    bucket.tokens = Math.min(perMinute, bucket.tokens + (time - bucket.updated) * refillPerMs);
    bucket.updated = time;
    if (bucket.tokens < 1) {
      buckets.set(user, bucket);
      response.set("retry-after", String(Math.ceil((1 - bucket.tokens) / refillPerMs / 1000)));
      return next(new AppError("RATE_LIMITED", "Too many requests; slow down"));
    }
    bucket.tokens -= 1;
    buckets.set(user, bucket);
    next();
  };
}
