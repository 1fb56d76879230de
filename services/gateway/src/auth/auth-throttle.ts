import { createHash } from "node:crypto";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { type SignInVia } from "@agent-orchestrator/shared/wire";
import { addressKey } from "../http/client-address.js";

/** Addresses (and address-and-token pairs) remembered at once; the oldest is forgotten first, so a flood cannot grow memory. */
const maxEntries = 10_000;
const windowMs = 60_000;

/** What presenting a token from an address came to: its user and how they signed in, or the refusal to answer. */
export type SignIn = { ok: true; user: string; via: SignInVia } | { ok: false; error: AppError; retryAfterSeconds?: number };

/** Who a credential names, or why it is refused (unknown, expired, forged, not allowed); auth/bearer-sign-in.ts. */
export type CredentialCheck = (token: string) => Promise<SignIn>;

/**
 * Bearer tokens checked under a limit on guessing (per gateway replica), for HTTP and the WebSocket alike.
 *
 * An address (http/client-address.ts: IPv6 by its /64) may present `maxPerMinute` different wrong tokens a
 * minute. Past that, a token from there is refused (RATE_LIMITED, retry-after) without being looked at,
 * so a guesser cannot learn which guess was right, until the oldest failure is a minute old. Two things
 * keep that from locking out everyone else at the address (behind a NAT or a proxy, that is many users):
 * - a token that has signed in from this address before (since this gateway started) is always checked
 *   and let in: a user already working from there never notices a guesser next to them;
 * - the same wrong token sent again is counted once: a client retrying a stale token shows nothing new
 *   and does not use up its neighbours' allowance.
 * A token new to the address waits out the guessing like any guess; tokens are remembered by a
 * fingerprint, never in clear.
 */
export class AuthThrottle {
  /** per address key: each wrong token's fingerprint and when it last failed, oldest first */
  private readonly failures = new Map<string, Map<string, number>>();
  /** `addressKey fingerprint` of every token that signed in from that address, least recently used first */
  private readonly known = new Map<string, true>();

  constructor(
    private readonly maxPerMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Checks `token` presented from `address` with `check`, under the limit above. */
  async signIn(address: string, token: string, check: CredentialCheck): Promise<SignIn> {
    const key = addressKey(address);
    const pair = `${key} ${fingerprint(token)}`;
    let checked: SignIn | undefined;
    if (this.known.has(pair)) {
      checked = await check(token);
      if (checked.ok) return this.admit(pair, checked);
      // it was good here before (expired or revoked since): from now on an ordinary wrong token
    }
    const wait = this.retryAfterSeconds(address);
    if (wait > 0) return { ok: false, error: new AppError("RATE_LIMITED", "Too many wrong tokens from this address; try again later"), retryAfterSeconds: wait };
    checked ??= await check(token);
    if (checked.ok) return this.admit(pair, checked);
    this.refused(address, token);
    return checked;
  }

  private admit(pair: string, signedIn: Extract<SignIn, { ok: true }>): SignIn {
    this.known.delete(pair);
    this.known.set(pair, true);
    if (this.known.size > maxEntries) this.known.delete(this.known.keys().next().value as string);
    return signedIn;
  }

  /**
   * Counts one refused `attempt` from `address` (a wrong token, or another anonymous attempt such as a refused
   * sign-in callback, told apart by what it sent): the same attempt again counts once.
   */
  refused(address: string, attempt: string): void {
    this.fail(addressKey(address), fingerprint(attempt));
  }

  /** Seconds until `address` may be heard again; 0 when it may now. */
  retryAfterSeconds(address: string): number {
    const key = addressKey(address);
    const recent = this.recent(key);
    if (recent.size < this.maxPerMinute) return 0;
    const oldest = recent.values().next().value ?? 0;
    return Math.max(1, Math.ceil((oldest + windowMs - this.now()) / 1000));
  }

  private fail(key: string, tokenFingerprint: string): void {
    const recent = this.recent(key);
    recent.delete(tokenFingerprint);
    recent.set(tokenFingerprint, this.now());
    // the address moves to the end: the one forgotten first is the one quiet longest
    this.failures.delete(key);
    this.failures.set(key, recent);
    if (this.failures.size > maxEntries) this.failures.delete(this.failures.keys().next().value as string);
  }

  /** `key`'s failures of the last minute (older ones dropped), oldest first. */
  private recent(key: string): Map<string, number> {
    const recent = this.failures.get(key) ?? new Map<string, number>();
    const since = this.now() - windowMs;
    for (const [token, time] of recent) {
      if (time > since) break;
      recent.delete(token);
    }
    if (recent.size === 0) this.failures.delete(key);
    return recent;
  }
}

const fingerprint = (token: string): string => createHash("sha256").update(token).digest("base64url").slice(0, 22);
