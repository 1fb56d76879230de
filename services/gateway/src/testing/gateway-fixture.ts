import { randomUUID } from "node:crypto";
import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, inject } from "vitest";
import type { z } from "zod";
import { createLogger, decodeJson, encodeJson } from "@agent-orchestrator/shared/runtime";
import { jetStreamNames, subjects } from "@agent-orchestrator/shared/wire";
import { gatewayEnvSchema } from "../config.js";
import { startGateway, type Gateway } from "../gateway-service.js";

/** The users of a fixture gateway and their bearer tokens. */
export const tokens = { alice: "alice-token-1111", bob: "bob-token-22222", carol: "carol-token-3333", dave: "dave-token-44444" } as const;
export type FixtureUser = keyof typeof tokens;

export interface GatewayFixture {
  url(): string;
  connection(): NatsConnection;
  /** prepended to every subject and stream of this gateway, so test files sharing the server stay apart */
  prefix: string;
  /** answers `subject` with `reply(request)` (or what it resolves to), the request parsed with the schema the real service uses */
  respond<S extends z.ZodType>(subject: string, schema: S, reply: (request: z.infer<S>) => unknown): void;
  /** an authenticated HTTP request as `user` */
  api(user: FixtureUser, path: string, init?: RequestInit): Promise<Response>;
}

/**
 * A real gateway (HTTP, WebSocket, its NATS client) on the shared test server with its own subject prefix,
 * the run streams made for that prefix, and bearer tokens for four users; the services behind it are
 * played by each test file's responders. Call it at the top of the file.
 */
export function gatewayFixture(env: Record<string, string> = {}): GatewayFixture {
  const prefix = `gw${randomUUID().slice(0, 8)}.`;
  const names = jetStreamNames(prefix);
  let connection: NatsConnection | undefined;
  let gateway: Gateway | undefined;
  const open = () => {
    if (!connection) throw new Error("gatewayFixture: the connection opens in beforeAll");
    return connection;
  };

  beforeAll(async () => {
    connection = await connect({ servers: inject("natsUrl") });
    const manager = await connection.jetstreamManager();
    await manager.streams.add({ name: names.runRequests, subjects: [prefix + subjects.runRequestAll] });
    await manager.streams.add({ name: names.runEvents, subjects: [prefix + subjects.runEventsAll] });
    // the uploads store, as a tool-runner makes it at its start
    await connection.jetstream().views.os(names.fileUploadsStore);
    const authTokens = Object.entries(tokens).map(([user, token]) => `${user}:${token}`).join(",");
    // JetStream reserves a stream's byte limit on disk: a small audit log for each of the many fixtures at once
    const config = gatewayEnvSchema.parse({ PORT: "0", HOST: "127.0.0.1", AUTH_TOKENS: authTokens, REQUEST_TIMEOUT_MS: "2000", AUDIT_MAX_BYTES: String(8 * 1024 ** 2), ...env });
    gateway = await startGateway({ connection, config, logger: createLogger("gateway-test", "silent"), subjectPrefix: prefix });
  });

  afterAll(async () => {
    await gateway?.stop();
    if (!connection) return;
    const manager = await connection.jetstreamManager();
    const streams = [names.runRequests, names.runEvents, `OBJ_${names.fileUploadsStore}`, names.auditStream, `KV_${names.personalTokensBucket}`];
    await Promise.all(streams.map((stream) => manager.streams.delete(stream).catch(() => undefined)));
    await connection.drain();
  });

  const url = () => {
    if (!gateway) throw new Error("gatewayFixture: the gateway starts in beforeAll");
    return gateway.url.replace("localhost", "127.0.0.1");
  };
  return {
    url,
    connection: open,
    prefix,
    respond(subject, schema, reply) {
      open().subscribe(prefix + subject, {
        callback: (_error, message) => void Promise.resolve(reply(decodeJson(message.data, schema))).then((value) => message.respond(encodeJson(value))),
      });
    },
    api: (user, path, init = {}) =>
      fetch(`${url()}${path}`, { ...init, headers: { authorization: `Bearer ${tokens[user]}`, ...(init.headers as Record<string, string> | undefined) } }),
  };
}
