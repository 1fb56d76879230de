import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { NatsConnection } from "nats";
import { AuditPublisher, type Logger } from "@agent-orchestrator/shared/runtime";
import { jetStreamNames, serviceNames } from "@agent-orchestrator/shared/wire";
import { AgentList } from "./agents/agent-list.js";
import { createApp, type GatewayServices } from "./app.js";
import { AuthThrottle } from "./auth/auth-throttle.js";
import { startOidcSignIn } from "./auth/oidc-sign-in.js";
import { chatStarter } from "./chat/start-chat.js";
import { PersonalTokens } from "./tokens/personal-tokens.js";
import { ResponseStore } from "./openai/response-store.js";
import { ensureAuditStream } from "./audit/audit-stream.js";
import { clientAddress } from "./http/client-address.js";
import { listenHost, type GatewayConfig } from "./config.js";
import type { GatewayContext } from "./gateway-context.js";
import { applyHttpServerTimeouts } from "./http/http-server-timeouts.js";
import { GatewayMetrics } from "./metrics.js";
import { UserRateLimit } from "./limits/user-rate-limit.js";
import { WebSocketCaps } from "./limits/websocket-caps.js";
import { attachWebSocket } from "./websocket/websocket-server.js";
import { ContentReader } from "./files/content-reader.js";
import { UploadStaging } from "./uploads/upload-staging.js";
import { closeServer } from "./http/close-server.js";

export interface GatewayOptions {
  connection: NatsConnection;
  config: GatewayConfig;
  logger: Logger;
  subjectPrefix?: string;
  /** the least time between two fetches of the OpenID provider's keys; tests set 0 to see a key rotation at once */
  jwksCooldownMs?: number;
}

export interface Gateway {
  /** the base URL the server listens on */
  url: string;
  server: Server;
  stop(): Promise<void>;
}

/**
 * Starts the HTTP server and registers the gateway with the Services framework, so `/healthz` and
 * `$SRV` discovery count its replicas like any other service.
 */
export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const { connection, config, logger } = options;
  const subjectPrefix = options.subjectPrefix ?? "";
  const metrics = new GatewayMetrics();
  const names = jetStreamNames(subjectPrefix);
  await ensureAuditStream(await connection.jetstreamManager(), names.auditStream, config, subjectPrefix);
  const context: GatewayContext = {
    connection,
    config,
    logger,
    subjectPrefix,
    metrics,
    clientAddress: (request) => clientAddress(request, config.TRUSTED_PROXIES),
  };
  const personalTokens = await PersonalTokens.open(connection, names.personalTokensBucket, { maxPerUser: config.PERSONAL_TOKENS_PER_USER, replicas: config.JS_REPLICAS, rules: config });
  const uploads = new UploadStaging({ connection, subjectPrefix });
  const audit = new AuditPublisher({ connection, subjectPrefix, logger, onLost: () => metrics.auditLost.inc() });
  const services: GatewayServices = {
    auth: {
      authFailures: new AuthThrottle(config.AUTH_FAILURES_PER_MINUTE),
      oidc: await startOidcSignIn({ connection, config, subjectPrefix, ...(options.jwksCooldownMs === undefined ? {} : { jwksCooldownMs: options.jwksCooldownMs }) }),
      personalTokens,
    },
    personalTokens,
    requestRate: new UserRateLimit(config.RATE_LIMIT_PER_MINUTE, { onRefused: () => metrics.refusals.inc({ limit: "rate" }) }),
    webSockets: new WebSocketCaps(config),
    agents: new AgentList({ connection, config, subjectPrefix }, logger),
    uploads,
    contents: new ContentReader({ connection, subjectPrefix }),
    audit,
    responses: await ResponseStore.open(connection, names.responsesBucket, { maxAgeMs: config.RESPONSES_MAX_AGE_DAYS * 24 * 60 * 60 * 1000, replicas: config.JS_REPLICAS }),
    startChat: chatStarter(context, { uploads, audit }),
  };
  const app = createApp(context, services);
  const service = await connection.services.add({
    name: serviceNames.gateway,
    version: "0.1.0",
    description: "HTTP, SSE and WebSocket front door",
  });
  const host = listenHost(config);
  const server = createServer(app);
  applyHttpServerTimeouts(server, config);
  server.listen(config.PORT, host);
  await once(server, "listening");
  const { auth, webSockets, requestRate, startChat } = services;
  const sockets = attachWebSocket(server, context, { auth, webSockets, requestRate, audit, startChat });
  const { port } = server.address() as AddressInfo;
  const shownHost = host === "0.0.0.0" ? "localhost" : host;
  return {
    url: `http://${shownHost}:${port}`,
    server,
    stop: async () => {
      await service.stop();
      services.agents.close();
      for (const socket of sockets.clients) socket.close(1001, "gateway stopping");
      sockets.close();
      await closeServer(server);
    },
  };
}
