import { Router } from "express";
import { AppError, GetAgentReply, ListAgentsReply, requestJson, subjects } from "@agent-orchestrator/shared";
import { asyncRoute } from "./async-route.js";
import type { GatewayContext } from "./gateway-context.js";
import { sendError } from "./send-error.js";

/** GET /api/agents and GET /api/agents/:id (ids of installed-module agents contain a slash). */
export function agentsRoutes(context: GatewayContext): Router {
  const router = Router();
  const timeoutMs = context.config.REGISTRY_TIMEOUT_MS;

  router.get(
    "/api/agents",
    asyncRoute(async (request, response) => {
      const bundle = typeof request.query["bundle"] === "string" ? request.query["bundle"] : undefined;
      const reply = await requestJson(context.connection, context.subjectPrefix + subjects.registryAgentsList, bundle ? { bundle } : {}, ListAgentsReply, {
        timeoutMs,
      });
      if (!reply.success) return sendError(response, new AppError(reply.error.code, reply.error.message));
      response.json({ success: true, agents: reply.agents });
    }),
  );

  router.get(
    "/api/agents/*id",
    asyncRoute(async (request, response) => {
      const segments = request.params["id"] as unknown as string[];
      const reply = await requestJson(context.connection, context.subjectPrefix + subjects.registryAgentsGet, { agent_id: segments.join("/") }, GetAgentReply, {
        timeoutMs,
      });
      if (!reply.success) return sendError(response, new AppError(reply.error.code, reply.error.message));
      response.json({ success: true, agent: reply.agent });
    }),
  );
  return router;
}
