import { Router, type Response } from "express";
import { AppError } from "@agent-orchestrator/shared/runtime";
import {
  ActivationBody,
  ActivationQuery,
  ActivationReply,
  GetAgentReply,
  ListAgentsReply,
  ListBundlesReply,
  subjects,
} from "@agent-orchestrator/shared/wire";
import type { GatewayContext } from "../gateway-context.js";
import { callService } from "../nats-call.js";
import { parseInput } from "../http/parse-input.js";
import { currentUser } from "../auth/auth.js";
import { defaultProjectAlias } from "../access/project-access.js";
import type { AgentList } from "./agent-list.js";
import { modelRoutes, withModels } from "./agent-models.js";

/**
 * Agents and bundles, answered by the registry. Ids of installed-module agents contain a slash
 * (`bmm/analyst`), so the id is the rest of the path; `/activation` at its end asks for the activation
 * document instead, with the user's request (`user_context`) in it when given. Each agent shows the model that
 * answers it (`model: {name, route}`); with `?project_id=` as in that project, whose own routes only its members see.
 */
export function agentsRoutes(context: GatewayContext, { agents: agentList }: { agents: AgentList }): Router {
  const router = Router();

  router.get(
    "/api/agents",
    async (request, response) => {
      const bundle = typeof request.query["bundle"] === "string" ? request.query["bundle"] : undefined;
      const projectId = typeof request.query["project_id"] === "string" && request.query["project_id"] !== defaultProjectAlias ? request.query["project_id"] : undefined;
      if (bundle || projectId) {
        const agents = bundle ? (await callService(context, subjects.registryAgentsList, { bundle }, ListAgentsReply)).agents : await agentList.list();
        // the routes a member of the project sees (the orchestrator answers PROJECT_NOT_FOUND to anyone else)
        const routes = projectId ? await modelRoutes(context, { user: currentUser(response), project_id: projectId }) : (await agentList.current()).routes;
        response.json({ success: true, agents: withModels(agents, routes, projectId) });
        return;
      }
      // the body is made once per registry change; with its ETag set, Express answers a matching If-None-Match with 304
      const { body, etag } = await agentList.current();
      response.set({ ETag: etag, "Content-Type": "application/json; charset=utf-8" }).send(body);
    },
  );

  router.get(
    "/api/agents/*id",
    async (request, response) => {
      const segments = request.params["id"] as unknown as string[];
      if (segments.length > 1 && segments.at(-1) === "activation") {
        const query = parseInput(ActivationQuery, request.query, "query");
        await sendActivation(context, response, segments.slice(0, -1).join("/"), query);
        return;
      }
      const reply = await callService(context, subjects.registryAgentsGet, { agent_id: segments.join("/") }, GetAgentReply);
      const [model] = withModels([reply.agent], (await agentList.current()).routes);
      response.json({ success: true, agent: model?.model ? { ...reply.agent, model: model.model } : reply.agent });
    },
  );

  // docs/design.md "Activation documents": the user's request may come as a JSON body (which can also give `{variables}`)
  router.post(
    "/api/agents/*id",
    async (request, response) => {
      const segments = request.params["id"] as unknown as string[];
      if (segments.length < 2 || segments.at(-1) !== "activation") throw new AppError("NOT_FOUND", "No such route");
      const body = parseInput(ActivationBody, request.body ?? {}, "body");
      await sendActivation(context, response, segments.slice(0, -1).join("/"), body);
    },
  );

  router.get(
    "/api/bundles",
    async (_request, response) => {
      const reply = await callService(context, subjects.registryBundlesList, {}, ListBundlesReply);
      const { success: _success, ...bundles } = reply;
      response.json({ success: true, ...bundles });
    },
  );
  return router;
}

async function sendActivation(context: GatewayContext, response: Response, agentId: string, request: ActivationBody): Promise<void> {
  const reply = await callService(context, subjects.registryAgentsActivation, { agent_id: agentId, ...request }, ActivationReply);
  const { success: _success, ...activation } = reply;
  response.json({ success: true, ...activation });
}
