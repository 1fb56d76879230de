/**
 * Personal API tokens end to end (docs/tokens.md; docs/security.md cases 197–199): a user signed in by an
 * AUTH_TOKENS token makes a token, which signs them in on /api, /v1, /mcp and /ws on two gateway replicas; revoked on
 * one replica, it is refused by the other on the very next request, because every replica looks the token up in
 * the `personal_tokens` bucket on every request and keeps no copy. The bucket holds only the token's sha256.
 */
import { createHash } from "node:crypto";
import { connect } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { jetStreamNames } from "@agent-orchestrator/shared/wire";
import { testNatsCredentials } from "@agent-orchestrator/testing/nats-harness";
import { startServiceProcess, type ServiceProcess } from "@agent-orchestrator/testing/service-processes";
import { recordMessages, type SocketMessages } from "@agent-orchestrator/testing/socket-messages";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";
import { doorStatuses as statuses, upgradeStatus } from "@agent-orchestrator/testing/token-doors";
import { waitUntil } from "@agent-orchestrator/testing/wait-until";

const aliceToken = "alice-token-1111";
let system: TestSystem;
let second: ServiceProcess;
let secondUrl: string;

beforeAll(async () => {
  system = await startTestSystem({ responder: () => ({ text: "ok" }), env: { AUTH_TOKENS: `alice:${aliceToken},bob:bob-token-22222`, HOST: "127.0.0.1" } });
  // a second gateway replica on the same NATS: tokens made on one are checked by the other
  second = startServiceProcess("gateway", { ...system.env, PORT: "0" });
  secondUrl = String((await second.waitForLine((entry) => String(entry["msg"]).startsWith("gateway listening")))["url"]);
}, 60_000);

afterAll(async () => {
  await second?.stop();
  await system?.stop();
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Messages a socket receives, and how it closed, collected as they come. */
function openSocket(base: string, headers: Record<string, string>): Promise<{ socket: WebSocket } & SocketMessages> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${base.replace("http", "ws")}/ws`, { headers: { origin: base, ...headers } });
    const messages = recordMessages(socket);
    socket.once("open", () => resolve({ socket, ...messages }));
    socket.once("error", reject);
  });
}

async function makeToken(base: string, body: Record<string, unknown>): Promise<{ id: string; token: string }> {
  const response = await fetch(`${base}/api/tokens`, { method: "POST", headers: { ...bearer(aliceToken), "content-type": "application/json" }, body: JSON.stringify(body) });
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string; token: string };
}

describe("personal API tokens on two gateway replicas", () => {
  it("a token made on one replica works on /api, /v1, /mcp and /ws of both, as its user", async () => {
    const { id, token } = await makeToken(system.url, { name: "laptop" });
    const ok = { api: 200, v1: 200, mcp: 200 };
    expect(await statuses(system.url, token)).toEqual(ok);
    expect(await statuses(secondUrl, token)).toEqual(ok);
    expect(await upgradeStatus(secondUrl, token)).toBe(101);
    // it is alice: her token list, read with the token on the other replica, holds it
    const listed = (await (await fetch(`${secondUrl}/api/tokens`, { headers: bearer(token) })).json()) as { tokens: Array<{ id: string }> };
    expect(listed.tokens.map((entry) => entry.id)).toContain(id);
  });

  it("case 197: revoked on one replica, it is refused on the next request on the other, on every API and /ws", async () => {
    const { id, token } = await makeToken(system.url, { name: "to revoke" });
    expect(await statuses(secondUrl, token)).toEqual({ api: 200, v1: 200, mcp: 200 });
    const revoked = await fetch(`${system.url}/api/tokens/${id}`, { method: "DELETE", headers: bearer(aliceToken) });
    expect(revoked.status).toBe(200);
    expect(await statuses(secondUrl, token)).toEqual({ api: 401, v1: 401, mcp: 401 });
    expect(await statuses(system.url, token)).toEqual({ api: 401, v1: 401, mcp: 401 });
    expect(await upgradeStatus(secondUrl, token)).toBe(401);
  });

  it("case 197: a socket signed in by a token, on the upgrade or by an auth message, ends at its next message once the token is revoked on the other replica", async () => {
    const { id, token } = await makeToken(system.url, { name: "socket" });
    const byUpgrade = await openSocket(secondUrl, bearer(token));
    const byMessage = await openSocket(secondUrl, {});
    byMessage.socket.send(JSON.stringify({ type: "auth", token }));
    await byMessage.next((message) => message["type"] === "ready");
    const revoked = await fetch(`${system.url}/api/tokens/${id}`, { method: "DELETE", headers: bearer(aliceToken) });
    expect(revoked.status).toBe(200);
    for (const opened of [byUpgrade, byMessage]) {
      opened.socket.send(JSON.stringify({ type: "watch", session_id: "s-none" }));
      expect((await opened.closed).code).toBe(1008);
      expect(opened.received.at(-1)).toMatchObject({ type: "error", error: { code: "UNAUTHORIZED", message: expect.stringContaining("revoked") } });
    }
  });

  it("case 198: an expired token is refused on both replicas", async () => {
    const { token } = await makeToken(system.url, { name: "brief", expires_at: new Date(Date.now() + 2_000).toISOString() });
    const refused = { api: 401, v1: 401, mcp: 401 };
    for (const base of [system.url, secondUrl]) {
      await waitUntil(async () => JSON.stringify(await statuses(base, token)) === JSON.stringify(refused), { intervalMs: 100, message: "the token to expire" });
    }
  });

  it("case 199: the bucket holds the token's sha256, never the token", async () => {
    const { token } = await makeToken(system.url, { name: "stored" });
    const admin = await connect({ servers: system.env["NATS_URL"], user: "admin", pass: testNatsCredentials("admin").NATS_PASSWORD });
    try {
      const kv = await admin.jetstream().views.kv(jetStreamNames().personalTokensBucket);
      const keys: string[] = [];
      for await (const key of await kv.keys()) keys.push(key);
      expect(keys).toContain(`hash.${createHash("sha256").update(token).digest("hex")}`);
      const secret = token.slice("aop_".length);
      for (const key of keys) {
        expect(key).not.toContain(secret);
        expect(new TextDecoder().decode((await kv.get(key))?.value)).not.toContain(secret);
      }
    } finally {
      await admin.close();
    }
  });
});
