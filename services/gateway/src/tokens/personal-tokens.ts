import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { KV, NatsConnection } from "nats";
import { AppError, decodeJson, encodeJson, retryWhileLeaderless } from "@agent-orchestrator/shared/runtime";
import { personalTokenPrefix, PersonalTokenRecord, type PersonalTokenView, type SignInVia } from "@agent-orchestrator/shared/wire";
import { stillAdmitted, type AdmissionRules } from "../auth/admission.js";
import type { PersonalTokenLookup, PersonalTokenUse } from "../auth/sign-in-services.js";
import { tokenSignIn } from "../migrations/token-sign-in-migration.js";

/** Random bytes in a token: 256 bits, so a token cannot be guessed and its unsalted sha256 cannot be reversed. */
const tokenBytes = 32;

const hashKey = (hash: string): string => `hash.${hash}`;
/** User names may hold characters KV keys do not allow: the key holds them base64url-encoded. */
const userPrefix = (user: string): string => `user.${Buffer.from(user, "utf8").toString("base64url")}`;
const userKey = (user: string, id: string): string => `${userPrefix(user)}.${id}`;

export const tokenHash = (token: string): string => createHash("sha256").update(token).digest("hex");

/** A new token: the prefix and 43 base64url characters. */
const newToken = (): string => personalTokenPrefix + randomBytes(tokenBytes).toString("base64url");

const view = (record: PersonalTokenRecord): PersonalTokenView => ({ id: record.id, name: record.name, created_at: record.created_at, expires_at: record.expires_at });

/** A token as the operator's listing shows it (`npm run tokens:list`): its owner, how they signed in to make it, and whether they still may. */
export interface PersonalTokenEntry extends PersonalTokenView {
  user: string;
  /** how the owner signed in to make it; null for a token stored before this was kept */
  via: SignInVia["via"] | null;
  admitted: boolean;
}

/**
 * Personal API tokens (docs/tokens.md) in the gateway's KV bucket `personal_tokens`: the record under
 * `hash.<sha256 of the token>` (what every request bearing a token looks up: one direct get, no process cache, so
 * a revocation holds on every replica from the next request) and again under `user.<owner>.<id>` (the owner's
 * list, and the way from an id to the hash). The token itself is never stored.
 *
 * A new token's owner key is written before its hash key, and a revocation removes the hash key first: a gateway
 * that dies in between leaves an owner key with no working token behind, never a working token nobody can list
 * or revoke. The per-user limit is checked against the owner's keys before a create, so two creates at the same
 * moment can pass it by one.
 *
 * A token keeps how its user signed in to make it, and works only while the rules in force (`rules`: AUTH_TOKENS,
 * the OpenID Connect groups and domains) still let that user in (auth/admission.ts).
 */
export class PersonalTokens implements PersonalTokenLookup {
  private constructor(
    private readonly kv: KV,
    private readonly maxPerUser: number,
    private readonly rules: AdmissionRules,
    private readonly now: () => number,
  ) {}

  static async open(connection: NatsConnection, bucket: string, options: { maxPerUser: number; replicas: number; rules: AdmissionRules; now?: () => number }): Promise<PersonalTokens> {
    const kv = await retryWhileLeaderless(() => connection.jetstream().views.kv(bucket, { history: 1, replicas: options.replicas }));
    return new PersonalTokens(kv, options.maxPerUser, options.rules, options.now ?? Date.now);
  }

  /** Makes a token of `user`, who signed in `via` some way (kept with it, and checked again on every use). */
  async create(user: string, name: string, expiresAt: string | undefined, via: SignInVia): Promise<PersonalTokenView & { token: string }> {
    if (expiresAt !== undefined && Date.parse(expiresAt) <= this.now()) throw new AppError("VALIDATION_ERROR", "expires_at must be in the future");
    if ((await this.ownerKeys(user)).length >= this.maxPerUser) {
      throw new AppError("TOKEN_LIMIT", `A user may hold ${this.maxPerUser} personal tokens; revoke one first`);
    }
    const token = newToken();
    const record: PersonalTokenRecord = {
      id: randomUUID(),
      name,
      user,
      hash: tokenHash(token),
      created_at: new Date(this.now()).toISOString(),
      expires_at: expiresAt === undefined ? null : new Date(expiresAt).toISOString(),
      sign_in: via,
    };
    await retryWhileLeaderless(() => this.kv.create(userKey(user, record.id), encodeJson(record)));
    await retryWhileLeaderless(() => this.kv.create(hashKey(record.hash), encodeJson(record)));
    return { ...view(record), token };
  }

  /** The owner's tokens, oldest first, expired ones too (until revoked). */
  async list(user: string): Promise<PersonalTokenView[]> {
    const records = await Promise.all((await this.ownerKeys(user)).map((key) => this.read(key)));
    return records
      .filter((record): record is PersonalTokenRecord => record !== undefined)
      .map(view)
      .sort((a, b) => a.created_at.localeCompare(b.created_at));
  }

  /** Revokes the owner's token `id`; false when they have none by that id (another user's token is not theirs). */
  async revoke(user: string, id: string): Promise<boolean> {
    const key = userKey(user, id);
    const record = await this.read(key);
    if (!record) return false;
    await retryWhileLeaderless(() => this.kv.purge(hashKey(record.hash)));
    await retryWhileLeaderless(() => this.kv.purge(key));
    return true;
  }

  /**
   * The user a token signs in as, and whether the rules in force still let them in; undefined for a token that
   * is not one of ours, is revoked or has expired. Only tokens with the prefix are looked up, so an AUTH_TOKENS
   * or provider token costs no KV read.
   */
  async userOf(token: string): Promise<PersonalTokenUse | undefined> {
    if (!token.startsWith(personalTokenPrefix)) return undefined;
    const record = await this.read(hashKey(tokenHash(token)));
    if (!record) return undefined;
    if (record.expires_at !== null && Date.parse(record.expires_at) <= this.now()) return undefined;
    const via = tokenSignIn(record);
    if (!stillAdmitted(record.user, via, this.rules)) return { user: record.user, id: record.id, admitted: false };
    return { user: record.user, id: record.id, admitted: true, via };
  }

  /** Every stored token of every user, oldest first, each with whether its owner is still let in: the operator's listing. */
  async all(): Promise<PersonalTokenEntry[]> {
    const keys: string[] = [];
    for await (const key of await retryWhileLeaderless(() => this.kv.keys("user.>"))) keys.push(key);
    const records: PersonalTokenRecord[] = [];
    // one read at a time: a deployment's every token must not become as many requests at once
    for (const key of keys) {
      const record = await this.read(key);
      if (record) records.push(record);
    }
    return records
      .map((record) => ({ ...view(record), user: record.user, via: record.sign_in?.via ?? null, admitted: stillAdmitted(record.user, tokenSignIn(record), this.rules) }))
      .sort((a, b) => a.created_at.localeCompare(b.created_at));
  }

  private async read(key: string): Promise<PersonalTokenRecord | undefined> {
    const entry = await retryWhileLeaderless(() => this.kv.get(key));
    return entry && entry.operation === "PUT" ? decodeJson(entry.value, PersonalTokenRecord) : undefined;
  }

  private async ownerKeys(user: string): Promise<string[]> {
    const keys: string[] = [];
    for await (const key of await retryWhileLeaderless(() => this.kv.keys(`${userPrefix(user)}.>`))) keys.push(key);
    return keys;
  }
}

/** A personal token's id is a UUID; anything else names no token. */
export const personalTokenIdPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
