import { once } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { NatsConnection } from "nats";
import { serviceNames, type Logger } from "@agent-orchestrator/shared";
import { AgentList } from "./agent-list.js";
import { createApp } from "./app.js";
import { AuthThrottle } from "./auth-throttle.js";
import { listenHost, type GatewayConfig } from "./config.js";
import { GatewayMetrics } from "./metrics.js";
import { attachWebSocket } from "./websocket-server.js";

export interface GatewayOptions {
  connection: NatsConnection;
  config: GatewayConfig;
  logger: Logger;
  subjectPrefix?: string;
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
  const context = {
    connection,
    config,
    logger,
    subjectPrefix,
    metrics: new GatewayMetrics(),
    authFailures: new AuthThrottle(config.AUTH_FAILURES_PER_MINUTE),
    agents: new AgentList({ connection, config, subjectPrefix }, logger),
  };
  const app = createApp(context);
  const service = await connection.services.add({
    name: serviceNames.gateway,
    version: "0.1.0",
    description: "HTTP, SSE and WebSocket front door",
  });
  const host = listenHost(config);
  const server = app.listen(config.PORT, host);
  await once(server, "listening");
  const sockets = attachWebSocket(server, context);
  const { port } = server.address() as AddressInfo;
  const shownHost = host === "0.0.0.0" ? "localhost" : host;
  return {
    url: `http://${shownHost}:${port}`,
    server,
    stop: async () => {
      await service.stop();
      context.agents.close();
      for (const socket of sockets.clients) socket.close(1001, "gateway stopping");
      sockets.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
    },
  };
}
