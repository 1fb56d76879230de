import { Router } from "express";
import { RequestStrategy } from "nats";
import { serviceNames } from "@agent-orchestrator/shared";
import { asyncRoute } from "./async-route.js";
import type { GatewayContext } from "./gateway-context.js";

/** GET /healthz: the gateway is alive; NATS state; how many replicas of each service answer a $SRV ping. */
export function healthRoute(context: GatewayContext): Router {
  const router = Router();
  router.get(
    "/healthz",
    asyncRoute(async (_request, response) => {
      const replicas: Record<string, number> = Object.fromEntries(Object.values(serviceNames).map((name) => [name, 0]));
      const connected = !context.connection.isClosed();
      if (connected) {
        try {
          const pings = await context.connection.services.client({ strategy: RequestStrategy.Timer, maxWait: 250 }).ping();
          for await (const ping of pings) {
            if (ping.name in replicas) replicas[ping.name] = (replicas[ping.name] ?? 0) + 1;
          }
        } catch (error) {
          context.logger.warn({ err: error }, "service discovery failed");
        }
      }
      const ready = connected && Object.values(replicas).every((count) => count > 0);
      response.status(connected ? 200 : 503).json({
        success: connected,
        status: ready ? "ok" : connected ? "degraded" : "down",
        nats: { connected, server: connected ? context.connection.getServer() : null },
        services: replicas,
      });
    }),
  );
  return router;
}
