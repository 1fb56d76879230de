import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Registry } from "prom-client";
import type { Logger } from "../logger.js";

interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

/**
 * Serves a service's Prometheus registry on `GET /metrics` (METRICS_PORT, METRICS_HOST), for the services
 * that have no HTTP server of their own. Anything else is a 404. Port 0 picks a free port (tests).
 */
export async function startMetricsServer(options: { registry: Registry; port: number; host: string; logger: Logger }): Promise<MetricsServer> {
  const { registry, logger } = options;
  const server: Server = createServer((request, response) => {
    if (request.method !== "GET" || request.url?.split("?")[0] !== "/metrics") {
      response.writeHead(404).end();
      return;
    }
    registry.metrics().then(
      (text) => response.writeHead(200, { "content-type": registry.contentType }).end(text),
      (error: unknown) => {
        logger.error({ err: error }, "metrics could not be collected");
        response.writeHead(500).end();
      },
    );
  });
  server.listen(options.port, options.host);
  await once(server, "listening");
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}/metrics`;
  logger.info({ url }, "metrics listening");
  return {
    url,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
