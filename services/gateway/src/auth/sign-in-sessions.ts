import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { KV, NatsConnection } from "nats";
import { AppError, decodeJson, encodeJson, retryWhileLeaderless } from "@agent-orchestrator/shared/runtime";
import { jetStreamNames, SignInSession, type SignInVia } from "@agent-orchestrator/shared/wire";

/** A new browser sign-in: what goes into its cookie, and the session as stored. */
export interface NewSignIn {
  cookieId: string;
  session: SignInSession;
}

/**
 * The browser sign-ins (docs/sign-in.md "Sessions") in the `sign_ins` KV bucket, under the sha256 of the
 * random id in the cookie: whoever reads the bucket learns no cookie. Every request reads its sign-in
 * from the bucket (one direct get), so a sign-out on one replica is a refusal on all of them at the next
 * request; the bucket's TTL removes what nobody signed out of.
 */
export class SignInSessions {
  private constructor(
    private readonly kv: KV,
    private readonly lifetimeMs: number,
  ) {}

  /** Opens (or makes) the bucket, its TTL the sign-in's lifetime. */
  static async open(connection: NatsConnection, subjectPrefix: string, lifetimeMs: number, replicas: number): Promise<SignInSessions> {
    const bucket = jetStreamNames(subjectPrefix).signInsBucket;
    const kv = await retryWhileLeaderless(() => connection.jetstream().views.kv(bucket, { history: 1, ttl: lifetimeMs, replicas }));
    return new SignInSessions(kv, lifetimeMs);
  }

  /**
   * Stores a sign-in of `user` with how they signed in (the claims the rules read, checked again on every
   * request: auth/admission.ts); the cookie id is returned here only, never stored.
   */
  async create(user: string, via: SignInVia, now = new Date()): Promise<NewSignIn> {
    const cookieId = randomBytes(32).toString("base64url");
    const session: SignInSession = {
      user,
      csrf_token: randomBytes(32).toString("base64url"),
      signed_in_at: now.toISOString(),
      expires_at: new Date(now.getTime() + this.lifetimeMs).toISOString(),
      sign_in: via,
    };
    await this.call(() => this.kv.put(keyOf(cookieId), encodeJson(session)));
    return { cookieId, session };
  }

  /** The sign-in a cookie id names, while it lasts; undefined for an unknown, ended or expired one. */
  async find(cookieId: string, now = new Date()): Promise<SignInSession | undefined> {
    if (!cookieIdPattern.test(cookieId)) return undefined;
    const entry = await this.call(() => this.kv.get(keyOf(cookieId)));
    if (!entry || entry.operation !== "PUT") return undefined;
    const session = decodeJson(entry.value, SignInSession);
    return Date.parse(session.expires_at) > now.getTime() ? session : undefined;
  }

  /** Ends a sign-in everywhere. */
  async end(cookieId: string): Promise<void> {
    if (!cookieIdPattern.test(cookieId)) return;
    await this.call(() => this.kv.delete(keyOf(cookieId)));
  }

  private async call<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await retryWhileLeaderless(operation);
    } catch (error) {
      throw new AppError("SERVICE_UNAVAILABLE", "The sign-in store cannot be reached", { cause: error });
    }
  }
}

/** Whether `presented` is the session's CSRF token, compared in constant time. */
export function csrfTokenMatches(session: SignInSession, presented: string | undefined): boolean {
  if (presented === undefined) return false;
  const expected = Buffer.from(session.csrf_token);
  const given = Buffer.from(presented);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

const cookieIdPattern = /^[A-Za-z0-9_-]{43}$/;

const keyOf = (cookieId: string): string => createHash("sha256").update(cookieId).digest("base64url");
