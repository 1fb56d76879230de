import { z } from "zod";
import { ErrorReply } from "./error-code.js";

/**
 * Which turns a model route serves (docs/models.md "Routes"): an agent id (`bmm/analyst`), a module (an installed
 * module's code such as `bmm`, or a bundle's name: the agent's `bundleName`) and a project id. Every key given must
 * match; at least one is given.
 */
export const ModelRouteMatch = z
  .object({
    agent: z.string().min(1).optional(),
    module: z.string().min(1).optional(),
    project: z.string().min(1).optional(),
  })
  .strict()
  .refine((match) => match.agent !== undefined || match.module !== undefined || match.project !== undefined, {
    message: "name at least one of agent, module, project",
  });
export type ModelRouteMatch = z.infer<typeof ModelRouteMatch>;

/**
 * A route as others may see it: its name, the model it calls and what it matches. Never its base URL or key.
 * The default route (OPENAI_BASE_URL, LLM_MODEL) is the one without `match`.
 */
export const ModelRouteView = z.object({
  name: z.string().min(1),
  model: z.string().min(1),
  match: ModelRouteMatch.optional(),
  /** tokens the route's model reads at most (docs/models.md "Context windows"; absent from older orchestrators) */
  context_window: z.number().int().positive().optional(),
});
export type ModelRouteView = z.infer<typeof ModelRouteView>;

/**
 * Which model answers an agent: the model's name and the route that chose it, and on `GET /api/agents` the route's
 * context window in tokens.
 */
export const AgentModel = z.object({ name: z.string(), route: z.string(), context_window: z.number().int().positive().optional() });
export type AgentModel = z.infer<typeof AgentModel>;

/**
 * gateway → orchestrator (`agent.models.routes`): the route table in order, the default last. Routes matching a
 * project are given only for `project_id` when `user` is one of its members (PROJECT_NOT_FOUND otherwise), so no
 * project's id is shown to others; without `project_id` the table is the same for everyone.
 */
export const ModelRoutesRequest = z.object({ user: z.string().min(1).optional(), project_id: z.string().min(1).optional() });
export type ModelRoutesRequest = z.infer<typeof ModelRoutesRequest>;

export const ModelRoutesReply = z.union([z.object({ success: z.literal(true), routes: z.array(ModelRouteView) }), ErrorReply]);
export type ModelRoutesReply = z.infer<typeof ModelRoutesReply>;

/** What a turn is: its agent, the agent's module (`bundleName`) and its project. */
export interface ModelRouteSubject {
  agent: string;
  module: string;
  project?: string;
}

/** Whether `route` serves `subject`: every key of its match is equal (a route without match serves everything). */
export function routeMatches(match: ModelRouteMatch | undefined, subject: ModelRouteSubject): boolean {
  if (!match) return true;
  return (
    (match.agent === undefined || match.agent === subject.agent) &&
    (match.module === undefined || match.module === subject.module) &&
    (match.project === undefined || match.project === subject.project)
  );
}

/** The first route in order that serves `subject` (the first match wins), or undefined when none does. */
export function pickModelRoute<R extends { match?: ModelRouteMatch | undefined }>(routes: readonly R[], subject: ModelRouteSubject): R | undefined {
  return routes.find((route) => routeMatches(route.match, subject));
}
