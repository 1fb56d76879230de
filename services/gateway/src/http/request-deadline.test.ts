import { once } from "node:events";
import { createServer, request, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterEach, describe, expect, it } from "vitest";
import { gatewayEnvSchema } from "../config.js";
import { applyHttpServerTimeouts } from "./http-server-timeouts.js";
import { bodyDeadline } from "./request-deadline.js";

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
});

/** A gateway-like server whose default bound on a whole request is 1 s; `/bundle` has a minute of its own. */
async function listen(): Promise<number> {
  const app = express();
  const countBytes = async (incoming: express.Request, response: express.Response) => {
    let bytes = 0;
    for await (const chunk of incoming) bytes += (chunk as Buffer).length;
    response.json({ bytes });
  };
  app.put("/bundle", bodyDeadline(60_000), countBytes);
  app.put("/plain", countBytes);
  server = createServer(app);
  applyHttpServerTimeouts(server, gatewayEnvSchema.parse({ HTTP_REQUEST_TIMEOUT_MS: "1000" }));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return (server.address() as AddressInfo).port;
}

/** A PUT of `chunks` chunks of 1 KiB, one every `everyMs`; `stall` sends the first one only and then waits. */
async function trickle(port: number, route: string, chunks: number, everyMs: number, stall = false): Promise<{ status: number; body: string }> {
  const outgoing = request({ host: "127.0.0.1", port, path: route, method: "PUT", headers: { "content-length": String(chunks * 1024) } });
  outgoing.on("error", () => undefined);
  const answered = once(outgoing, "response") as Promise<[IncomingMessage]>;
  void (async () => {
    for (let sent = 0; sent < (stall ? 1 : chunks) && !outgoing.destroyed; sent += 1) {
      outgoing.write(Buffer.alloc(1024, 97));
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
    if (!stall) outgoing.end();
  })();
  const [response] = await answered;
  let body = "";
  for await (const chunk of response) body += (chunk as Buffer).toString("utf8");
  return { status: response.statusCode ?? 0, body };
}

describe("a request's body takes the time its route allows (docs/operations.md \"Slow uploads\")", () => {
  it("turns Node's one bound for every request off", () => {
    const plain = createServer();
    applyHttpServerTimeouts(plain, gatewayEnvSchema.parse({}));
    expect(plain.requestTimeout).toBe(0);
  });

  it("takes a slow bundle past the server's default, within its route's own bound", async () => {
    const port = await listen();
    const answer = await trickle(port, "/bundle", 10, 250);
    expect(answer).toEqual({ status: 200, body: JSON.stringify({ bytes: 10 * 1024 }) });
  });

  it("answers 408 and closes the connection of a body that stops arriving, at the default on other routes", async () => {
    const port = await listen();
    const answer = await trickle(port, "/plain", 10, 250, true);
    expect(answer.status).toBe(408);
  });
});
