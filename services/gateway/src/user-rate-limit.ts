import { AppError } from "@agent-orchestrator/shared";

/** Refused: the error to answer, and the whole seconds after which the same request would pass. */
export type RateRefusal = { error: AppError; retryAfterSeconds: number };

/**
 * The per-user request budget (RATE_LIMIT_PER_MINUTE, per gateway replica), one token bucket per user:
 * `perMinute` a minute, refilled continuously, bursts up to the same number. Every door takes from the same
 * bucket, so a user's budget is the same whichever they use, and every turn costs one whichever way it
 * starts: an HTTP request (`/api` JSON or SSE, `/v1`) one, a WebSocket `chat`, `watch` or `cancel` one, an
 * MCP request one per JSON-RPC message in it (a batch of 60 `tools/call` costs 60). Users are the names
 * of AUTH_TOKENS (or the one local user), so the map stays as small as that list.
 */
export class UserRateLimit {
  private readonly buckets = new Map<string, { tokens: number; updated: number }>();
  private readonly refillPerMs: number;
  private readonly now: () => number;
  private readonly onRefused: () => void;

  /** `onRefused` hears every refusal (the metrics count them). */
  constructor(
    private readonly perMinute: number,
    options: { now?: () => number; onRefused?: () => void } = {},
  ) {
    this.refillPerMs = perMinute / 60_000;
    this.now = options.now ?? Date.now;
    this.onRefused = options.onRefused ?? (() => undefined);
  }

  /** Takes `cost` requests from `user`'s budget, all or none; undefined when they were taken. */
  take(user: string, cost = 1): RateRefusal | undefined {
    const time = this.now();
    const bucket = this.buckets.get(user) ?? { tokens: this.perMinute, updated: time };
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + (time - bucket.updated) * this.refillPerMs);
    bucket.updated = time;
    this.buckets.set(user, bucket);
    if (cost > this.perMinute) {
      this.onRefused();
      // never possible, however long the client waits: the message says to send fewer
      return { error: new AppError("RATE_LIMITED", `${cost} requests at once are more than the ${this.perMinute} a minute allowed; send fewer`), retryAfterSeconds: 60 };
    }
    if (bucket.tokens < cost) {
      this.onRefused();
      const retryAfterSeconds = Math.max(1, Math.ceil((cost - bucket.tokens) / this.refillPerMs / 1000));
      return { error: new AppError("RATE_LIMITED", `Too many requests (${this.perMinute} a minute); slow down`), retryAfterSeconds };
    }
    bucket.tokens -= cost;
    return undefined;
  }
}
