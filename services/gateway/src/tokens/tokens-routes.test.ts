import { createHash } from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import { jetStreamNames } from "@agent-orchestrator/shared/wire";
import { gatewayFixture, type FixtureUser } from "../testing/gateway-fixture.js";

const fixture = gatewayFixture({ PERSONAL_TOKENS_PER_USER: "3", AUTH_FAILURES_PER_MINUTE: "3" });

const withToken = (token: string, path: string, init: RequestInit = {}) =>
  fetch(`${fixture.url()}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...(init.headers as Record<string, string> | undefined) } });
const create = async (user: FixtureUser, body: unknown) => {
  const response = await fixture.api(user, "/api/tokens", { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" } });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
};
const list = async (user: FixtureUser) => ((await (await fixture.api(user, "/api/tokens")).json()) as { tokens: Array<Record<string, unknown>> }).tokens;
const revoke = (user: FixtureUser, id: string) => fixture.api(user, `/api/tokens/${id}`, { method: "DELETE" });

describe("personal API tokens", () => {
  it("makes a token shown once (201, aop_ and 256 random bits), lists it without the token, and signs its owner in", async () => {
    const created = await create("alice", { name: "ci script" });
    expect(created).toEqual({
      status: 201,
      body: { success: true, id: expect.any(String), token: expect.stringMatching(/^aop_[A-Za-z0-9_-]{43}$/), name: "ci script", created_at: expect.any(String), expires_at: null },
    });
    const listed = await list("alice");
    expect(listed).toEqual([{ id: created.body["id"], name: "ci script", created_at: created.body["created_at"], expires_at: null }]);
    expect(JSON.stringify(listed)).not.toContain(created.body["token"]);
    expect(JSON.stringify(listed)).not.toContain(createHash("sha256").update(created.body["token"] as string).digest("hex"));
    // the token is alice: it reads her token list
    const signedIn = await withToken(created.body["token"] as string, "/api/tokens");
    expect(signedIn.status).toBe(200);
    expect(((await signedIn.json()) as { tokens: unknown[] }).tokens).toEqual(listed);
    await revoke("alice", created.body["id"] as string);
  });

  it("case 199: stores only the token's sha256: no key or value of the bucket holds the token", async () => {
    const { body } = await create("bob", { name: "hash check" });
    const token = body["token"] as string;
    const kv = await fixture.connection().jetstream().views.kv(jetStreamNames(fixture.prefix).personalTokensBucket);
    const keys: string[] = [];
    for await (const key of await kv.keys()) keys.push(key);
    expect(keys).toContain(`hash.${createHash("sha256").update(token).digest("hex")}`);
    for (const key of keys) {
      expect(key).not.toContain(token.slice(4));
      expect(new TextDecoder().decode((await kv.get(key))?.value)).not.toContain(token.slice(4));
    }
    await revoke("bob", body["id"] as string);
  });

  it("case 197, 200: refuses a revoked token on the very next request, and lets only the owner revoke (another's id is 404)", async () => {
    const { body } = await create("carol", { name: "to revoke" });
    const token = body["token"] as string;
    expect((await withToken(token, "/api/tokens")).status).toBe(200);
    expect((await revoke("dave", body["id"] as string)).status).toBe(404);
    expect((await withToken(token, "/api/tokens")).status).toBe(200);
    expect((await revoke("carol", body["id"] as string)).status).toBe(200);
    const refused = await withToken(token, "/api/tokens");
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("UNAUTHORIZED");
    expect(await list("carol")).toEqual([]);
    expect((await revoke("carol", body["id"] as string)).status).toBe(404);
  });

  it("case 198: refuses a token past its expires_at, and an expires_at already past", async () => {
    expect((await create("dave", { name: "old", expires_at: "2001-01-01T00:00:00Z" })).status).toBe(400);
    expect((await create("dave", { name: "bad date", expires_at: "tomorrow" })).status).toBe(400);
    const { body } = await create("dave", { name: "short", expires_at: new Date(Date.now() + 3_000).toISOString() });
    expect((await withToken(body["token"] as string, "/api/tokens")).status).toBe(200);
    await vi.waitFor(async () => expect((await withToken(body["token"] as string, "/api/tokens")).status).toBe(401), { timeout: 10_000, interval: 200 });
    // an expired token stays listed (with its expiry) until revoked
    expect(await list("dave")).toEqual([expect.objectContaining({ id: body["id"], expires_at: body["expires_at"] })]);
    await revoke("dave", body["id"] as string);
  });

  it("case 200: does not let a personal token make tokens, and caps the tokens a user holds (409 TOKEN_LIMIT)", async () => {
    const first = await create("alice", { name: "one" });
    const minted = await withToken(first.body["token"] as string, "/api/tokens", { method: "POST", body: JSON.stringify({ name: "child" }) });
    expect(minted.status).toBe(403);
    await create("alice", { name: "two" });
    await create("alice", { name: "three" });
    const fourth = await create("alice", { name: "four" });
    expect(fourth).toEqual({ status: 409, body: { success: false, error: { code: "TOKEN_LIMIT", message: expect.any(String) } } });
    for (const token of await list("alice")) await revoke("alice", token["id"] as string);
    const again = await create("alice", { name: "again" });
    expect(again.status).toBe(201);
    await revoke("alice", again.body["id"] as string);
  });

  it("validates the body: a name, nothing else", async () => {
    expect((await create("bob", {})).status).toBe(400);
    expect((await create("bob", { name: "x", scope: "admin" })).status).toBe(400);
    expect((await create("bob", { name: " " })).status).toBe(400);
  });
});
