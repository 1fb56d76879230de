import { Router } from "express";
import { ActivationReply, GetAgentReply, ListAgentsReply, ListBundlesReply, subjects } from "@agent-orchestrator/shared";
import { asyncRoute } from "./async-route.js";
import type { GatewayContext } from "./gateway-context.js";
import { callService } from "./nats-call.js";

/**
 * Agents and bundles, answered by the registry. Ids of installed-module agents contain a slash
 * (`bmm/analyst`), so the id is the rest of the path; `/activation` at its end asks for the activation
 * document instead.
 */
export function agentsRoutes(context: GatewayContext): Router {
  const router = Router();

  router.get(
    "/api/agents",
    asyncRoute(async (request, response) => {
      const bundle = typeof request.query["bundle"] === "string" ? request.query["bundle"] : undefined;
      const reply = await callService(context, subjects.registryAgentsList, bundle ? { bundle } : {}, ListAgentsReply);
      response.json({ success: true, agents: reply.agents });
    }),
  );

  router.get(
    "/api/agents/*id",
    asyncRoute(async (request, response) => {
      const segments = request.params["id"] as unknown as string[];
      if (segments.length > 1 && segments.at(-1) === "activation") {
        const reply = await callService(context, subjects.registryAgentsActivation, { agent_id: segments.slice(0, -1).join("/") }, ActivationReply);
        const { success: _success, ...activation } = reply;
        response.json({ success: true, ...activation });
        return;
      }
      const reply = await callService(context, subjects.registryAgentsGet, { agent_id: segments.join("/") }, GetAgentReply);
      response.json({ success: true, agent: reply.agent });
    }),
  );

  router.get(
    "/api/bundles",
    asyncRoute(async (_request, response) => {
      const reply = await callService(context, subjects.registryBundlesList, {}, ListBundlesReply);
      const { success: _success, ...bundles } = reply;
      response.json({ success: true, ...bundles });
    }),
  );
  return router;
}
