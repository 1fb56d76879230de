/**
 * A token bucket: `capacity` tokens, refilled continuously at `capacity` per `periodMs`, so a client may burst up
 * to `capacity` and then goes at the refill rate. The one rate limiter of the gateway's doors (per user, per
 * WebSocket).
 */
export class TokenBucket {
  #tokens: number;
  #updated: number;
  readonly #refillPerMs: number;

  constructor(
    private readonly capacity: number,
    periodMs: number,
    private readonly now: () => number,
  ) {
    this.#refillPerMs = capacity / periodMs;
    this.#tokens = capacity;
    this.#updated = now();
  }

  /** Takes `cost` tokens, all or none; false when there are fewer. */
  take(cost = 1): boolean {
    this.#refill();
    if (this.#tokens < cost) return false;
    this.#tokens -= cost;
    return true;
  }

  /** Milliseconds until `cost` tokens (at most the capacity) are there; 0 when they are. */
  msUntil(cost: number): number {
    this.#refill();
    return Math.max(0, (cost - this.#tokens) / this.#refillPerMs);
  }

  #refill(): void {
    const time = this.now();
    this.#tokens = Math.min(this.capacity, this.#tokens + (time - this.#updated) * this.#refillPerMs);
    this.#updated = time;
  }
}
