/**
 * A personal token signs in only while its user may (docs/tokens.md "Who a token still signs in"; docs/security.md
 * cases 260–262), with the whole system and a real provider (support/oidc-provider.ts): bob (AUTH_TOKENS), erin (a
 * contractor at the provider, signed in on the page) and ada (staff, with the provider's access token) each make
 * a token. The gateway is then started again with bob removed from AUTH_TOKENS and contractors no longer in
 * OIDC_ALLOWED_GROUPS: bob's and erin's tokens, and erin's browser sign-in, get 401 on every door; ada's token
 * still works. The operator lists the tokens of users no longer let in and revokes them with `npm run tokens:list`.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "@agent-orchestrator/testing/free-port";
import { testNatsCredentials } from "@agent-orchestrator/testing/nats-harness";
import { CookieJar, signInOverHttp, startOidcProvider, type TestOidcProvider } from "@agent-orchestrator/testing/oidc-provider";
import { healthyGatewayUrl, repoRoot, startServiceProcess, type ServiceProcess } from "@agent-orchestrator/testing/service-processes";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";
import { doorStatuses, upgradeStatus } from "@agent-orchestrator/testing/token-doors";

const audience = "https://agents.example.test";
const aliceToken = "alice-token-1111";
const bobToken = "bob-token-22222";
/** the rules the gateway is started again with: bob removed, contractors no longer allowed */
const narrower = { AUTH_TOKENS: `alice:${aliceToken}`, OIDC_ALLOWED_GROUPS: "staff" };

let provider: TestOidcProvider;
let system: TestSystem;
let restarted: ServiceProcess | undefined;

beforeAll(async () => {
  const port = await freePort();
  const redirect = `http://127.0.0.1:${port}/auth/callback`;
  provider = await startOidcProvider({
    redirectUris: [redirect],
    users: { ada: { email: "ada@example.com", groups: ["staff"] }, erin: { email: "erin@partner.example", groups: ["contractors"] } },
  });
  system = await startTestSystem({
    responder: () => ({ text: "ok" }),
    env: {
      HOST: "127.0.0.1",
      PORT: String(port),
      AUTH_TOKENS: `alice:${aliceToken},bob:${bobToken}`,
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: provider.clientId,
      OIDC_CLIENT_SECRET: provider.clientSecret,
      OIDC_REDIRECT_URL: redirect,
      OIDC_AUDIENCE: audience,
      OIDC_ALLOWED_GROUPS: "staff,contractors",
      OIDC_SCOPES: "openid profile email groups",
    },
  });
}, 120_000);

afterAll(async () => {
  await restarted?.stop();
  await system?.stop();
  await provider?.close();
});

async function makeToken(headers: Record<string, string>): Promise<string> {
  const response = await fetch(`${system.url}/api/tokens`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ name: "laptop" }) });
  expect(response.status).toBe(201);
  return ((await response.json()) as { token: string }).token;
}

/** `npm run tokens:list` with `args`, as an operator runs it: the gateway's rules now in force, the admin NATS user. */
function tokensList(...args: string[]): { lines: Array<{ user: string; via: string | null; admitted: boolean; revoked?: boolean }>; stderr: string } {
  const run = spawnSync(join(repoRoot, "node_modules/.bin/tsx"), ["scripts/personal-tokens.ts", ...args], {
    cwd: repoRoot,
    encoding: "utf8",
    env: {
      PATH: process.env["PATH"] ?? "",
      NATS_URL: system.env["NATS_URL"],
      NATS_USER: "admin",
      NATS_PASSWORD: testNatsCredentials("admin").NATS_PASSWORD,
      OIDC_ISSUER: provider.issuer,
      ...narrower,
    },
  });
  expect(run.status, run.stderr).toBe(0);
  const lines = run.stdout.trim() === "" ? [] : run.stdout.trim().split("\n").map((line) => JSON.parse(line) as { user: string; via: string | null; admitted: boolean });
  return { lines, stderr: run.stderr };
}

describe("personal tokens of users the rules no longer let in", () => {
  it("case 260, case 261: after a restart with bob out of AUTH_TOKENS and contractors out of OIDC_ALLOWED_GROUPS, bob's and erin's tokens get 401 on /api, /v1, /mcp and /ws; ada's still work", async () => {
    const bob = await makeToken({ authorization: `Bearer ${bobToken}` });
    const { jar } = await signInOverHttp(system.url, "erin", new CookieJar());
    const me = (await (await fetch(`${system.url}/auth/me`, { headers: { cookie: jar.header() } })).json()) as { user: string; csrf_token: string };
    expect(me.user).toBe("erin");
    const erin = await makeToken({ cookie: jar.header(), origin: system.url, "x-csrf-token": me.csrf_token });
    const ada = await makeToken({ authorization: `Bearer ${await provider.mint("ada", audience)}` });
    const ok = { api: 200, v1: 200, mcp: 200 };
    for (const token of [bob, erin, ada]) {
      expect(await doorStatuses(system.url, token)).toEqual(ok);
      expect(await upgradeStatus(system.url, token)).toBe(101);
    }

    // the operator restarts the gateway with the narrower rules
    const gateway = system.processes.find((service) => service.name === "gateway");
    await gateway?.stop();
    restarted = startServiceProcess("gateway", { ...system.env, ...narrower });
    const url = await healthyGatewayUrl(restarted, 30_000);

    const refused = { api: 401, v1: 401, mcp: 401 };
    for (const token of [bob, erin]) {
      expect(await doorStatuses(url, token)).toEqual(refused);
      expect(await upgradeStatus(url, token)).toBe(401);
    }
    const answer = await fetch(`${url}/api/projects`, { headers: { authorization: `Bearer ${bob}` } });
    expect(await answer.json()).toMatchObject({ error: { code: "UNAUTHORIZED", message: expect.stringContaining("may no longer sign in") } });
    // erin's browser sign-in ends too: the page sees nobody signed in on its next load
    expect((await fetch(`${url}/api/projects`, { headers: { cookie: jar.header() } })).status).toBe(401);
    expect(await (await fetch(`${url}/auth/me`, { headers: { cookie: jar.header() } })).json()).toMatchObject({ user: null });
    expect(await doorStatuses(url, ada)).toEqual(ok);
    expect(await upgradeStatus(url, ada)).toBe(101);
    expect(await doorStatuses(url, aliceToken)).toEqual(ok);

    // the operator lists the tokens of users no longer let in, and revokes them
    const listed = tokensList("--not-admitted");
    expect(listed.lines.map((line) => [line.user, line.via, line.admitted]).sort()).toEqual([
      ["bob", "auth_tokens", false],
      ["erin", "oidc", false],
    ]);
    const revoked = tokensList("--not-admitted", "--revoke");
    expect(revoked.lines.map((line) => [line.user, line.revoked]).sort()).toEqual([
      ["bob", true],
      ["erin", true],
    ]);
    expect(revoked.stderr).toContain("2 personal tokens revoked");
    expect(tokensList().lines.map((line) => [line.user, line.admitted])).toEqual([["ada", true]]);
  }, 240_000);

  it("refuses --revoke without --user or --not-admitted, so no slip revokes everyone's tokens", () => {
    const run = spawnSync(join(repoRoot, "node_modules/.bin/tsx"), ["scripts/personal-tokens.ts", "--revoke"], { cwd: repoRoot, encoding: "utf8", env: { PATH: process.env["PATH"] ?? "" } });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("--revoke needs --user NAME or --not-admitted");
  });
});
