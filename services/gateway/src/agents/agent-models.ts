import {
  ModelRoutesReply,
  pickModelRoute,
  subjects,
  type AgentModel,
  type AgentSummary,
  type ModelRoutesRequest,
  type ModelRouteView,
} from "@agent-orchestrator/shared/wire";
import { callService } from "../nats-call.js";
import type { GatewayContext } from "../gateway-context.js";

/** An agent as the agent list shows it: with the model that answers it, when the orchestrator told. */
export type AgentWithModel = AgentSummary & { model?: AgentModel };

/**
 * The orchestrator's model routes (`agent.models.routes`, docs/models.md "The agent list"): the orchestrator holds
 * the table and is its one source; the gateway matches its agents against it, as a turn's route is chosen.
 */
export async function modelRoutes(context: Pick<GatewayContext, "connection" | "subjectPrefix" | "config">, request: ModelRoutesRequest): Promise<ModelRouteView[]> {
  return (await callService(context, subjects.modelRoutes, request, ModelRoutesReply)).routes;
}

/** Each agent with the model its turns get (in `projectId` when given); agents as they are when `routes` is unknown. */
export function withModels(agents: readonly AgentSummary[], routes: readonly ModelRouteView[] | undefined, projectId?: string): AgentWithModel[] {
  if (!routes) return [...agents];
  return agents.map((agent) => {
    const route = pickModelRoute(routes, { agent: agent.id, module: agent.bundleName, ...(projectId !== undefined ? { project: projectId } : {}) });
    return route ? { ...agent, model: { name: route.model, route: route.name, ...(route.context_window ? { context_window: route.context_window } : {}) } } : agent;
  });
}
