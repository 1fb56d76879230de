import { Router } from "express";
import { serviceNames } from "@agent-orchestrator/shared/wire";
import type { GatewayContext } from "./gateway-context.js";
import { countServiceReplicas } from "./service-replicas.js";

/** GET /healthz: the gateway is alive; NATS state; how many replicas of each service answer a $SRV ping. */
export function healthRoute(context: GatewayContext): Router {
  const router = Router();
  router.get(
    "/healthz",
    async (_request, response) => {
      let replicas: Record<string, number> = Object.fromEntries(Object.values(serviceNames).map((name) => [name, 0]));
      const connected = !context.connection.isClosed();
      if (connected) {
        try {
          replicas = await countServiceReplicas(context.connection);
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
    },
  );
  return router;
}
