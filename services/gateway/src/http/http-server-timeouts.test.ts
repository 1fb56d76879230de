import { once } from "node:events";
import { Agent, createServer, request, type Server } from "node:http";
import { connect, type AddressInfo, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { gatewayConfigProblem, gatewayEnvSchema } from "../config.js";
import { applyHttpServerTimeouts } from "./http-server-timeouts.js";

let server: Server | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  agent?.destroy();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
});

async function listen(env: Record<string, string>): Promise<number> {
  server = createServer((_request, response) => response.end("ok"));
  applyHttpServerTimeouts(server, gatewayEnvSchema.parse(env));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return (server.address() as AddressInfo).port;
}

/** One GET through `agent`: its status, whether it went over a connection used before, and that connection. */
function get(port: number, through: Agent) {
  return new Promise<{ status: number; reused: boolean; socket: Socket; keepAlive: string }>((resolve, reject) => {
    const outgoing = request({ host: "127.0.0.1", port, path: "/", agent: through }, (response) => {
      response.resume();
      response.on("end", () =>
        resolve({ status: response.statusCode ?? 0, reused: outgoing.reusedSocket, socket: outgoing.socket as Socket, keepAlive: String(response.headers["keep-alive"]) }),
      );
    });
    outgoing.on("error", reject);
    outgoing.end();
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("HTTP keep-alive (docs/security.md, gateway limits: a client's first call after an idle while failed with \"Connection error\")", () => {
  it("keeps idle connections 65 s and waits 66 s for headers by default, above common clients' and proxies' idle timeouts", async () => {
    const config = gatewayEnvSchema.parse({});
    const plain = createServer();
    applyHttpServerTimeouts(plain, config);
    expect([plain.keepAliveTimeout, plain.headersTimeout]).toEqual([65_000, 66_000]);
    expect(gatewayConfigProblem(gatewayEnvSchema.parse({ HTTP_KEEP_ALIVE_TIMEOUT_MS: "20000", HTTP_HEADERS_TIMEOUT_MS: "20000" }))).toContain("must be above");
    expect(gatewayConfigProblem(config)).toBeUndefined();
  });

  it("reuses a connection that was idle longer than Node's default 5 s, and the request succeeds", async () => {
    const port = await listen({});
    agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const first = await get(port, agent);
    expect(first.keepAlive).toBe("timeout=65");
    // Node closes an idle connection 5 s (its default), plus a 1 s grace in recent releases, after a response
    await sleep(7_000);
    const second = await get(port, agent);
    expect(second).toMatchObject({ status: 200, reused: true });
    expect(second.socket).toBe(first.socket);
  }, 15_000);

  it("keeps an idle connection open until the configured timeout, no sooner, and serves a request on it after an idle while", async () => {
    const port = await listen({ HTTP_KEEP_ALIVE_TIMEOUT_MS: "1500" });
    // a raw connection: an http.Agent drops an idle socket itself a second before the server's Keep-Alive hint
    const socket = connect(port, "127.0.0.1");
    await once(socket, "connect");
    let received = "";
    socket.setEncoding("utf8").on("data", (chunk: string) => (received += chunk));
    const ask = async () => {
      const before = received.length;
      socket.write("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
      while (!received.slice(before).endsWith("ok")) await sleep(10);
      return received.slice(before);
    };
    expect(await ask()).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    await sleep(1_000);
    expect(await ask()).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    const idleSince = performance.now();
    await once(socket, "end");
    // timers fire late under load, never early: the lower bound holds on a busy machine
    expect(performance.now() - idleSince).toBeGreaterThanOrEqual(1_400);
    socket.destroy();
  }, 15_000);
});
