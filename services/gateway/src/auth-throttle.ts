/** Addresses remembered at once; the oldest is forgotten first, so a flood of addresses cannot grow memory. */
const maxAddresses = 10_000;
const windowMs = 60_000;

/**
 * Failed sign-ins per client address over the last minute (per gateway replica). Past `maxPerMinute`,
 * every sign-in from that address is refused until the oldest failure leaves the window, a correct token
 * included: otherwise a guesser would still learn which guess was right.
 */
export class AuthThrottle {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly maxPerMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds until `address` may try again; 0 when it may now. */
  retryAfterSeconds(address: string): number {
    const recent = this.recent(address);
    if (recent.length < this.maxPerMinute) return 0;
    return Math.max(1, Math.ceil(((recent[0] ?? 0) + windowMs - this.now()) / 1000));
  }

  /** Records a failed sign-in (a token that was given and is wrong). */
  fail(address: string): void {
    const recent = [...this.recent(address), this.now()].slice(-this.maxPerMinute);
    this.failures.delete(address);
    this.failures.set(address, recent);
    if (this.failures.size > maxAddresses) this.failures.delete(this.failures.keys().next().value as string);
  }

  private recent(address: string): number[] {
    const since = this.now() - windowMs;
    const recent = (this.failures.get(address) ?? []).filter((time) => time > since);
    if (recent.length === 0) this.failures.delete(address);
    return recent;
  }
}
