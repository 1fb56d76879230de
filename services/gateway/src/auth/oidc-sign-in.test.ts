/**
 * OpenID Connect at the gateway (docs/sign-in.md; docs/security.md cases 187–193) against a real provider
 * (test/support/oidc-provider.ts) over HTTP: two gateway replicas share the sign-ins bucket on the test
 * NATS server, the orchestrator's and the registry's answers are played here and name the caller.
 */
import { randomUUID } from "node:crypto";
import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { inject } from "vitest";
import { createLogger, decodeJson, encodeJson } from "@agent-orchestrator/shared/runtime";
import { jetStreamNames, ListAgentsReply, MemberSettingsReply, MemberSettingsRequest, ProjectCreateRequest, ProjectListRequest, subjects } from "@agent-orchestrator/shared/wire";
import { CookieJar, signInOverHttp, startOidcProvider, type TestOidcProvider } from "@agent-orchestrator/testing/oidc-provider";
import { gatewayEnvSchema } from "../config.js";
import { startGateway, type Gateway } from "../gateway-service.js";
import { freePort } from "@agent-orchestrator/testing/free-port";
import { waitUntil } from "@agent-orchestrator/testing/wait-until";

const prefix = `oidc${randomUUID().slice(0, 8)}.`;
const audience = "https://agents.example.test";
let provider: TestOidcProvider;
let connection: NatsConnection;
let first: Gateway;
let second: Gateway;
let firstUrl: string;
let secondUrl: string;
/** the settings both gateways share */
let sharedEnv: Record<string, string>;


beforeAll(async () => {
  const firstPort = await freePort();
  const redirect = `http://127.0.0.1:${firstPort}/auth/callback`;
  provider = await startOidcProvider({
    redirectUris: [redirect],
    users: {
      ada: { email: "ada@example.com", groups: ["staff"] },
      eve: { email: "eve@example.com", groups: ["guests"] },
      erin: { name: "Erin Example", email: "erin@example.com", groups: ["staff"] },
    },
  });
  connection = await connect({ servers: inject("natsUrl") });
  // the orchestrator and the registry, answering with the caller they were told of
  connection.subscribe(prefix + subjects.projectRequest("list"), {
    callback: (_error, message) => {
      const { user } = decodeJson(message.data, ProjectListRequest);
      message.respond(encodeJson({ success: true, projects: [{ id: `p-${user}`, name: `${user}'s`, owner: user, role: "owner", personal: true, created_at: "2026-01-01T00:00:00Z", updated_at: "2026-01-01T00:00:00Z" }] }));
    },
  });
  connection.subscribe(prefix + subjects.projectRequest("create"), {
    callback: (_error, message) => {
      const { user, name } = decodeJson(message.data, ProjectCreateRequest);
      message.respond(encodeJson({ success: true, project: { id: "p-new", name, owner: user, role: "owner", personal: false, created_at: "2026-01-01T00:00:00Z", updated_at: "2026-01-01T00:00:00Z" } }));
    },
  });
  // a member's settings with the default the gateway names: `user_name` is the caller's name
  connection.subscribe(prefix + subjects.projectRequest("my_settings"), {
    callback: (_error, message) => {
      const { caller_name } = decodeJson(message.data, MemberSettingsRequest);
      message.respond(encodeJson({ success: true, settings: {}, defaults: caller_name ? { user_name: caller_name } : {} } satisfies MemberSettingsReply));
    },
  });
  connection.subscribe(prefix + subjects.registryAgentsList, { callback: (_error, message) => message.respond(encodeJson({ success: true, agents: [] } satisfies ListAgentsReply)) });
  sharedEnv = {
    HOST: "127.0.0.1",
    REQUEST_TIMEOUT_MS: "2000",
    AUTH_TOKENS: "bob:bob-token-22222",
    OIDC_ISSUER: provider.issuer,
    OIDC_CLIENT_ID: provider.clientId,
    OIDC_CLIENT_SECRET: provider.clientSecret,
    OIDC_REDIRECT_URL: redirect,
    OIDC_AUDIENCE: audience,
    OIDC_ALLOWED_GROUPS: "staff",
    OIDC_SCOPES: "openid profile email groups",
  };
  const logger = createLogger("gateway-test", "silent");
  first = await startGateway({ connection, logger, subjectPrefix: prefix, jwksCooldownMs: 0, config: gatewayEnvSchema.parse({ ...sharedEnv, PORT: String(firstPort), AUTH_FAILURES_PER_MINUTE: "1000" }) });
  // a second replica behind the same public URL, with a tight limit on wrong tokens
  second = await startGateway({ connection, logger, subjectPrefix: prefix, jwksCooldownMs: 0, config: gatewayEnvSchema.parse({ ...sharedEnv, PORT: "0", AUTH_FAILURES_PER_MINUTE: "3" }) });
  firstUrl = first.url;
  secondUrl = second.url;
});

afterAll(async () => {
  await first?.stop();
  await second?.stop();
  await provider?.close();
  if (connection) {
    const manager = await connection.jetstreamManager();
    const names = jetStreamNames(prefix);
    await Promise.all([`KV_${names.signInsBucket}`, names.auditStream, `KV_${names.personalTokensBucket}`].map((stream) => manager.streams.delete(stream).catch(() => undefined)));
    await connection.drain();
  }
});

const bearer = (token: string): RequestInit => ({ headers: { authorization: `Bearer ${token}` } });
const projectsAs = async (init: RequestInit, url = firstUrl) => {
  const response = await fetch(`${url}/api/projects`, init);
  return { status: response.status, body: (await response.json()) as { projects?: Array<{ owner: string }>; error?: { code: string } } };
};

describe("start", () => {
  it("stops with one line naming the issuer when the provider cannot be reached", async () => {
    const unreachable = `http://127.0.0.1:${await freePort()}`;
    const config = gatewayEnvSchema.parse({ PORT: "0", HOST: "127.0.0.1", OIDC_ISSUER: unreachable, OIDC_CLIENT_ID: "c", OIDC_REDIRECT_URL: "http://127.0.0.1:1/auth/callback" });
    const started = startGateway({ connection, config, logger: createLogger("gateway-test", "silent"), subjectPrefix: prefix });
    await expect(started).rejects.toThrow(new RegExp(`^Cannot read the OpenID provider's configuration at ${unreachable} \\(OIDC_ISSUER\\): `));
  });
});

describe("browser sign-in", () => {
  it("signs a user in through the provider's pages, back to the page it came from, with an HttpOnly SameSite cookie that /api accepts", async () => {
    const { jar, response } = await signInOverHttp(firstUrl, "ada", new CookieJar(), "/#/projects");
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/#/projects");
    const cookie = response.headers.getSetCookie().find((line) => line.startsWith("ao_session="));
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(await projectsAs({ headers: { cookie: jar.header() } })).toMatchObject({ status: 200, body: { projects: [{ owner: "ada" }] } });
    const me = await (await fetch(`${firstUrl}/auth/me`, { headers: { cookie: jar.header() } })).json();
    expect(me).toMatchObject({ success: true, oidc: true, tokens: true, user: "ada", via: "cookie", csrf_token: expect.any(String) });
  });

  it("sends a return_to naming another site back to the gateway's own page", async () => {
    const { response } = await signInOverHttp(firstUrl, "ada", new CookieJar(), "//evil.example/x");
    expect(response.headers.get("location")).toBe("/");
  });

  it("case 263: sends a return_to that the URL parser would turn into //host back to the gateway's own page", async () => {
    for (const returnTo of ["/.//evil.example", "/%2e%2e//evil.example", "/a/..//evil.example", "/.\\/evil.example", "/\t/evil.example"]) {
      const { response } = await signInOverHttp(firstUrl, "ada", new CookieJar(), returnTo);
      expect({ returnTo, location: response.headers.get("location") }).toEqual({ returnTo, location: "/" });
    }
  });

  it("refuses a user outside OIDC_ALLOWED_GROUPS, and sets no sign-in cookie", async () => {
    const { jar, response } = await signInOverHttp(firstUrl, "eve");
    expect(response.status).toBe(403);
    expect(jar.cookies.has("ao_session")).toBe(false);
  });

  it("refuses a callback without the sign-in this browser started (a forged or replayed redirect)", async () => {
    const response = await fetch(`${firstUrl}/auth/callback?code=stolen&state=guess`, { redirect: "manual" });
    expect(response.status).toBe(400);
  });

  it("tells a caller with no credential that OIDC is on and nobody is signed in", async () => {
    expect(await (await fetch(`${firstUrl}/auth/me`)).json()).toEqual({ success: true, oidc: true, tokens: true, user: null, via: null });
    expect((await projectsAs({})).status).toBe(401);
  });
});

/** How many audit records of `action` the gateways' AUDIT stream holds. */
async function auditRecords(action: string): Promise<number> {
  const manager = await connection.jetstreamManager();
  const info = await manager.streams.info(jetStreamNames(prefix).auditStream, { subjects_filter: `${prefix}${subjects.audit("*", "*", action)}` });
  return Object.values(info.state.subjects ?? {}).reduce((sum, count) => sum + count, 0);
}

describe("refused callbacks", () => {
  it("case 264: are counted per address: past AUTH_FAILURES_PER_MINUTE a callback gets 429 with retry-after and leaves no audit record", async () => {
    const before = await auditRecords("sign_in_failed");
    const statuses: number[] = [];
    let limited: Response | undefined;
    for (let attempt = 0; attempt < 6; attempt++) {
      const response = await fetch(`${secondUrl}/auth/callback?code=x${attempt}&state=y`, { redirect: "manual" });
      statuses.push(response.status);
      limited = response;
      await response.body?.cancel();
    }
    expect(statuses).toEqual([400, 400, 400, 429, 429, 429]);
    expect(limited?.headers.get("retry-after")).toMatch(/^\d+$/);
    // a sign-in recorded after them (the same NATS connection keeps the order): the refused callbacks are all stored by then
    await waitUntil(async () => (await auditRecords("sign_in_failed")) >= before + 3, { intervalMs: 20, message: "the three refusals to be recorded" });
    const signIns = await auditRecords("sign_in");
    expect((await signInOverHttp(firstUrl, "ada")).response.status).toBe(303);
    await waitUntil(async () => (await auditRecords("sign_in")) > signIns, { intervalMs: 20, message: "the sign-in to be recorded" });
    expect(await auditRecords("sign_in_failed")).toBe(before + 3);
  });
});

describe("rules narrowed after the sign-in", () => {
  it("case 261: a browser sign-in, and a personal token it made, end on a gateway started with groups the user is no longer in", async () => {
    const { jar } = await signInOverHttp(firstUrl, "ada");
    const me = (await (await fetch(`${firstUrl}/auth/me`, { headers: { cookie: jar.header() } })).json()) as { csrf_token: string };
    const made = await fetch(`${firstUrl}/api/tokens`, {
      method: "POST",
      headers: { cookie: jar.header(), origin: firstUrl, "x-csrf-token": me.csrf_token, "content-type": "application/json" },
      body: JSON.stringify({ name: "laptop" }),
    });
    expect(made.status).toBe(201);
    const { token } = (await made.json()) as { token: string };
    const narrower = await startGateway({
      connection,
      logger: createLogger("gateway-test", "silent"),
      subjectPrefix: prefix,
      config: gatewayEnvSchema.parse({ ...sharedEnv, PORT: "0", OIDC_ALLOWED_GROUPS: "admins" }),
    });
    try {
      for (const [url, status] of [[firstUrl, 200], [narrower.url, 401]] as const) {
        expect((await projectsAs({ headers: { cookie: jar.header() } }, url)).status).toBe(status);
        expect((await projectsAs(bearer(token), url)).status).toBe(status);
      }
      expect(await (await fetch(`${narrower.url}/auth/me`, { headers: { cookie: jar.header() } })).json()).toMatchObject({ user: null, via: null });
    } finally {
      await narrower.stop();
    }
  });
});

describe("user_name's default", () => {
  const defaultName = async (init: RequestInit) => ((await (await fetch(`${firstUrl}/api/me/settings`, init)).json()) as { defaults?: Record<string, string> }).defaults?.["user_name"];

  it("is the display name the provider gave, for the browser sign-in, the personal token it made and the provider's JWT", async () => {
    const { jar } = await signInOverHttp(firstUrl, "erin");
    expect(await defaultName({ headers: { cookie: jar.header() } })).toBe("Erin Example");
    const me = (await (await fetch(`${firstUrl}/auth/me`, { headers: { cookie: jar.header() } })).json()) as { csrf_token: string };
    const made = await fetch(`${firstUrl}/api/tokens`, {
      method: "POST",
      headers: { cookie: jar.header(), origin: firstUrl, "x-csrf-token": me.csrf_token, "content-type": "application/json" },
      body: JSON.stringify({ name: "laptop" }),
    });
    expect(made.status).toBe(201);
    expect(await defaultName(bearer(((await made.json()) as { token: string }).token))).toBe("Erin Example");
    expect(await defaultName(bearer(await provider.mint("erin", audience)))).toBe("Erin Example");
  });

  it("is the user id for an AUTH_TOKENS token, and for a provider's JWT without a name", async () => {
    expect(await defaultName(bearer("bob-token-22222"))).toBe("bob");
    expect(await defaultName(bearer(await provider.craft({ sub: "erin", aud: audience, email: "erin@example.com", groups: ["staff"] })))).toBe("erin");
  });
});

describe("CSRF", () => {
  it("refuses a state-changing request signed in by the cookie without the CSRF token, with a wrong one, or from another origin", async () => {
    const { jar } = await signInOverHttp(firstUrl, "ada");
    const me = (await (await fetch(`${firstUrl}/auth/me`, { headers: { cookie: jar.header() } })).json()) as { csrf_token: string };
    const create = (headers: Record<string, string>) =>
      fetch(`${firstUrl}/api/projects`, { method: "POST", headers: { cookie: jar.header(), "content-type": "application/json", origin: firstUrl, ...headers }, body: JSON.stringify({ name: "Plans" }) });
    const refusals: Array<Record<string, string>> = [{}, { "x-csrf-token": "wrong-token" }, { "x-csrf-token": me.csrf_token, origin: "http://evil.example" }];
    for (const headers of refusals) {
      const refused = await create(headers);
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({ error: { code: "CSRF_REFUSED" } });
    }
    const created = await create({ "x-csrf-token": me.csrf_token });
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ project: { owner: "ada" } });
  });

  it("asks no CSRF token of a request with a bearer token", async () => {
    const token = await provider.mint("ada", audience);
    const created = await fetch(`${firstUrl}/api/projects`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify({ name: "Plans" }) });
    expect(created.status).toBe(201);
  });
});

/** Opens /ws with `headers`: the first message it gets after sending `first`, or the status the upgrade was refused with. */
function openSocket(headers: Record<string, string>, first: object): Promise<{ status: number } | { message: { type: string; error?: { code: string; message: string } } }> {
  const socket = new WebSocket(`${firstUrl.replace("http", "ws")}/ws`, { headers });
  return new Promise((resolve, reject) => {
    socket.once("open", () => socket.send(JSON.stringify(first)));
    socket.once("message", (data) => {
      resolve({ message: JSON.parse(String(data)) as { type: string } });
      socket.close();
    });
    socket.once("unexpected-response", (_request, response) => resolve({ status: response.statusCode ?? 0 }));
    socket.once("error", reject);
  });
}

describe("the WebSocket", () => {
  it("is signed in by the cookie when the page's own origin opens it, and refused when no origin or another one comes with the cookie", async () => {
    const { jar } = await signInOverHttp(firstUrl, "ada");
    // signed in as ada by the cookie: a token of another user on the same socket is refused as such
    const opened = await openSocket({ cookie: jar.header(), origin: firstUrl }, { type: "auth", token: "bob-token-22222" });
    expect(opened).toMatchObject({ message: { type: "error", error: { code: "BAD_REQUEST", message: expect.stringContaining("another user") } } });
    expect(await openSocket({ cookie: jar.header() }, { type: "auth", token: "x" })).toEqual({ status: 403 });
    expect(await openSocket({ cookie: jar.header(), origin: "http://evil.example" }, { type: "auth", token: "x" })).toEqual({ status: 403 });
  });

  it("signs in with a provider JWT on the upgrade and in {type:\"auth\"} (a JWT is longer than most tokens)", async () => {
    const token = await provider.mint("ada", audience);
    const opened = await openSocket({ authorization: `Bearer ${token}` }, { type: "auth", token });
    expect(opened).toMatchObject({ message: { type: "ready" } });
    const forged = await provider.craft({ sub: "ada", aud: audience }, { key: "stranger" });
    expect(await openSocket({ authorization: `Bearer ${forged}` }, { type: "auth", token: forged })).toEqual({ status: 401 });
  });
});

describe("sign-out", () => {
  it("ends the sign-in on every replica at once: the cookie that worked on the second gateway is refused there after a sign-out on the first", async () => {
    const { jar } = await signInOverHttp(firstUrl, "ada");
    expect((await projectsAs({ headers: { cookie: jar.header() } }, secondUrl)).status).toBe(200);
    const stolenCookie = jar.header();
    // a socket the page opened with the cookie before the sign-out
    const socket = new WebSocket(`${firstUrl.replace("http", "ws")}/ws`, { headers: { cookie: jar.header(), origin: firstUrl } });
    const received: Array<{ type: string; error?: { code: string } }> = [];
    socket.on("message", (data) => received.push(JSON.parse(String(data)) as { type: string }));
    const closed = new Promise<number>((resolve) => socket.once("close", (code) => resolve(code)));
    await new Promise((resolve) => socket.once("open", resolve));
    const me = (await (await fetch(`${firstUrl}/auth/me`, { headers: { cookie: jar.header() } })).json()) as { csrf_token: string };
    expect((await fetch(`${firstUrl}/auth/logout`, { method: "POST", headers: { cookie: jar.header(), origin: firstUrl } })).status).toBe(403);
    const signedOut = await fetch(`${firstUrl}/auth/logout`, { method: "POST", headers: { cookie: jar.header(), origin: firstUrl, "x-csrf-token": me.csrf_token } });
    expect(signedOut.status).toBe(200);
    expect(signedOut.headers.getSetCookie().join()).toMatch(/ao_session=;/);
    expect((await projectsAs({ headers: { cookie: stolenCookie } }, secondUrl)).status).toBe(401);
    expect((await projectsAs({ headers: { cookie: stolenCookie } }, firstUrl)).status).toBe(401);
    // the open socket ends at its next message
    socket.send(JSON.stringify({ type: "watch", session_id: "s-none" }));
    expect(await closed).toBe(1008);
    expect(received.at(-1)).toMatchObject({ type: "error", error: { code: "UNAUTHORIZED" } });
  });
});

describe("provider JWTs as bearer tokens", () => {
  it("accepts an access token the provider issued for OIDC_AUDIENCE on /api, /v1 and /mcp, as the user its sub names", async () => {
    const token = await provider.mint("ada", audience);
    expect(await projectsAs(bearer(token))).toMatchObject({ status: 200, body: { projects: [{ owner: "ada" }] } });
    expect((await fetch(`${firstUrl}/v1/models`, bearer(token))).status).toBe(200);
    const mcp = await fetch(`${firstUrl}/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    expect(mcp.status).toBe(200);
  });

  it("refuses with 401 every JWT that is not good: expired, not yet valid, another audience, another issuer, alg none, HS256, a forged signature, a changed payload, a malformed one", async () => {
    const good = await provider.mint("ada", audience);
    const [header, , signature] = good.split(".");
    const claims = { sub: "ada", aud: audience };
    const now = Math.floor(Date.now() / 1000);
    const tokens = {
      expired: await provider.craft({ ...claims, iat: now - 7200, exp: now - 3600 }),
      notYetValid: await provider.craft({ ...claims, nbf: now + 3600 }),
      otherAudience: await provider.mint("ada", "https://other.example.test"),
      otherIssuer: await provider.craft({ ...claims, iss: "http://127.0.0.1:1/other" }),
      algNone: await provider.craft(claims, { alg: "none" }),
      hmac: await provider.craft(claims, { alg: "HS256" }),
      forged: await provider.craft(claims, { key: "stranger" }),
      changedPayload: `${header}.${Buffer.from(JSON.stringify({ ...claims, sub: "root", iss: provider.issuer, exp: now + 300 })).toString("base64url")}.${signature}`,
      malformed: "eyJhbGciOiJSUzI1NiJ9.not-json.x",
    };
    for (const [kind, token] of Object.entries(tokens)) {
      const answer = await projectsAs(bearer(token));
      expect({ kind, status: answer.status, code: answer.body.error?.code }).toEqual({ kind, status: 401, code: "UNAUTHORIZED" });
    }
    expect((await fetch(`${firstUrl}/v1/models`, bearer(tokens.expired))).status).toBe(401);
    expect((await fetch(`${firstUrl}/mcp`, { method: "POST", ...bearer(tokens.forged) })).status).toBe(401);
  });

  it("refuses a user outside the allowed groups with 403, like the sign-in does", async () => {
    expect((await projectsAs(bearer(await provider.mint("eve", audience)))).status).toBe(403);
  });

  it("lets a bearer that is no JWT through to AUTH_TOKENS beside OIDC", async () => {
    expect(await projectsAs(bearer("bob-token-22222"))).toMatchObject({ status: 200, body: { projects: [{ owner: "bob" }] } });
    expect((await projectsAs(bearer("not-a-token-at-all"))).status).toBe(401);
  });

  it("follows a key rotation: a token of the new key is accepted at once, one of the key rotated out is refused", async () => {
    const before = await provider.mint("ada", audience);
    expect((await projectsAs(bearer(before))).status).toBe(200);
    const oldKid = provider.currentKid();
    await provider.rotateKeys();
    expect(provider.currentKid()).not.toBe(oldKid);
    expect((await projectsAs(bearer(await provider.mint("ada", audience)))).status).toBe(200);
    expect((await projectsAs(bearer(before))).status).toBe(401);
  });

  it("counts wrong JWTs against the address's limit on wrong tokens (429 past it), like wrong AUTH_TOKENS", async () => {
    for (let attempt = 0; attempt < 3; attempt++) {
      expect((await projectsAs(bearer(await provider.craft({ sub: "ada", aud: audience, jti: `guess-${attempt}` }, { key: "stranger" })), secondUrl)).status).toBe(401);
    }
    const refused = await fetch(`${secondUrl}/api/projects`, bearer(await provider.craft({ sub: "ada", aud: audience, jti: "guess-4" }, { key: "stranger" })));
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).not.toBeNull();
  });
});
