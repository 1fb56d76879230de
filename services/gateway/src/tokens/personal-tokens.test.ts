/**
 * Who a personal token still signs in (docs/tokens.md "Who a token still signs in"), against a real `personal_tokens`
 * bucket: two gateways' views of one bucket, the second with the narrower rules an operator restarts with.
 */
import { randomUUID } from "node:crypto";
import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { encodeJson } from "@agent-orchestrator/shared/runtime";
import { type PersonalTokenRecord, type SignInVia } from "@agent-orchestrator/shared/wire";
import type { AdmissionRules } from "../auth/admission.js";
import { admissionRules as rules } from "../testing/admission-rules.js";
import { PersonalTokens, tokenHash } from "./personal-tokens.js";

const bucket = `personal_tokens_${randomUUID().slice(0, 8)}`;
/** bob removed from AUTH_TOKENS, contractors no longer allowed */
const narrower: AdmissionRules = { ...rules, AUTH_TOKENS: new Map([["alice-token-1111", "alice"]]), OIDC_ALLOWED_GROUPS: ["staff"] };
const viaAuthTokens: SignInVia = { via: "auth_tokens" };
const erinAtProvider: SignInVia = { via: "oidc", claims: { sub: "erin", groups: ["contractors"] } };
const adaAtProvider: SignInVia = { via: "oidc", claims: { sub: "ada", groups: ["staff"] } };

let connection: NatsConnection;
let before: PersonalTokens;
let after: PersonalTokens;

beforeAll(async () => {
  connection = await connect({ servers: inject("natsUrl") });
  before = await PersonalTokens.open(connection, bucket, { maxPerUser: 20, replicas: 1, rules });
  after = await PersonalTokens.open(connection, bucket, { maxPerUser: 20, replicas: 1, rules: narrower });
});

afterAll(async () => {
  await (await connection.jetstreamManager()).streams.delete(`KV_${bucket}`).catch(() => undefined);
  await connection.drain();
});

/** A token as a gateway stored it before the way its user signed in was kept: no `sign_in`. */
async function storedBefore(user: string): Promise<string> {
  const token = `aop_${randomUUID().replaceAll("-", "")}0123456789a`;
  const record: PersonalTokenRecord = { id: randomUUID(), name: "old", user, hash: tokenHash(token), created_at: "2026-01-01T00:00:00.000Z", expires_at: null };
  const kv = await connection.jetstream().views.kv(bucket);
  await kv.create(`user.${Buffer.from(user).toString("base64url")}.${record.id}`, encodeJson(record));
  await kv.create(`hash.${record.hash}`, encodeJson(record));
  return token;
}

describe("a personal token signs in only while its user may", () => {
  it("case 260: a token of a user since removed from AUTH_TOKENS is no longer admitted", async () => {
    const { token } = await before.create("bob", "ci", undefined, viaAuthTokens);
    expect(await before.userOf(token)).toMatchObject({ user: "bob", admitted: true, via: viaAuthTokens });
    expect(await after.userOf(token)).toMatchObject({ user: "bob", admitted: false });
  });

  it("case 261: a token of a provider's user whose kept groups no longer pass is no longer admitted; one whose still pass is", async () => {
    const erin = await before.create("erin", "laptop", undefined, erinAtProvider);
    const ada = await before.create("ada", "laptop", undefined, adaAtProvider);
    expect(await before.userOf(erin.token)).toMatchObject({ user: "erin", admitted: true, via: erinAtProvider });
    expect(await after.userOf(erin.token)).toMatchObject({ user: "erin", admitted: false });
    expect(await after.userOf(ada.token)).toMatchObject({ user: "ada", admitted: true, via: adaAtProvider });
  });

  it("case 262: a token stored before the way its user signed in was kept holds only while AUTH_TOKENS names its user", async () => {
    const bob = await storedBefore("bob");
    const erin = await storedBefore("erin");
    expect(await before.userOf(bob)).toMatchObject({ user: "bob", admitted: true, via: viaAuthTokens });
    expect(await after.userOf(bob)).toMatchObject({ user: "bob", admitted: false });
    expect(await before.userOf(erin)).toMatchObject({ user: "erin", admitted: false });
  });

  it("lists every user's tokens for the operator, each with how its user signed in and whether they still may", async () => {
    const listed = await after.all();
    const summary = listed.map((entry) => [entry.user, entry.via, entry.admitted]);
    expect(summary).toEqual(
      expect.arrayContaining([
        ["bob", "auth_tokens", false],
        ["erin", "oidc", false],
        ["ada", "oidc", true],
        ["bob", null, false],
        ["erin", null, false],
      ]),
    );
    expect(JSON.stringify(listed)).not.toMatch(/aop_|"hash"/);
    const erin = listed.find((entry) => entry.user === "erin" && entry.via === "oidc");
    expect(await after.revoke("erin", erin?.id ?? "")).toBe(true);
    expect((await after.all()).some((entry) => entry.id === erin?.id)).toBe(false);
  });
});
