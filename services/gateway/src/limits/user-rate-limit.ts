import { AppError } from "@agent-orchestrator/shared/runtime";
import { TokenBucket } from "./token-bucket.js";

/** Refused: the error to answer, and the whole seconds after which the same request would pass. */
export type RateRefusal = { error: AppError; retryAfterSeconds: number };

/**
 * The per-user request budget (RATE_LIMIT_PER_MINUTE, per gateway replica), one token bucket per user:
 * `perMinute` a minute, refilled continuously, bursts up to the same number. Every door takes from the same
 * bucket, so a user's budget is the same whichever they use, and every turn costs one whichever way it
 * starts: an HTTP request (`/api` JSON or SSE, `/v1`) one, a WebSocket `chat`, `watch` or `cancel` one, an
 * MCP request one per JSON-RPC message in it (a batch of 60 `tools/call` costs 60). Only signed-in users get
 * a bucket (AUTH_TOKENS names, personal tokens' and the OpenID provider's users, or the one local user), so
 * the map stays as small as the set of real users.
 */
export class UserRateLimit {
  private readonly buckets = new Map<string, TokenBucket>();
  private readonly now: () => number;
  private readonly onRefused: () => void;

  /** `onRefused` hears every refusal (the metrics count them). */
  constructor(
    private readonly perMinute: number,
    options: { now?: () => number; onRefused?: () => void } = {},
  ) {
    this.now = options.now ?? Date.now;
    this.onRefused = options.onRefused ?? (() => undefined);
  }

  /** Takes `cost` requests from `user`'s budget, all or none; undefined when they were taken. */
  take(user: string, cost = 1): RateRefusal | undefined {
    const bucket = this.buckets.get(user) ?? new TokenBucket(this.perMinute, 60_000, this.now);
    this.buckets.set(user, bucket);
    if (cost > this.perMinute) {
      this.onRefused();
      // never possible, however long the client waits: the message says to send fewer
      return { error: new AppError("RATE_LIMITED", `${cost} requests at once are more than the ${this.perMinute} a minute allowed; send fewer`), retryAfterSeconds: 60 };
    }
    if (bucket.take(cost)) return undefined;
    this.onRefused();
    const retryAfterSeconds = Math.max(1, Math.ceil(bucket.msUntil(cost) / 1000));
    return { error: new AppError("RATE_LIMITED", `Too many requests (${this.perMinute} a minute); slow down`), retryAfterSeconds };
  }
}
