import type { Service } from "nats";
import { addJsonEndpoint, type Logger } from "@agent-orchestrator/shared/runtime";
import { ModelRoutesRequest, subjects, type ModelRoutesReply } from "@agent-orchestrator/shared/wire";
import { projectOfMember } from "../projects/project-access.js";
import type { ProjectStore } from "../projects/project-store.js";
import type { ModelRouter } from "../model/model-router.js";

/**
 * `agent.models.routes`: the route table for the gateway's agent list (docs/models.md "The agent list"), without
 * URLs or keys. The orchestrator is its one source: the gateway matches agents against it. A route that matches a
 * project is given only to a member asking for that project (anyone else gets PROJECT_NOT_FOUND, as for any
 * project request), so a project's id is never shown to others.
 */
export function addModelRoutesEndpoint(service: Service, deps: { router: ModelRouter; projects: ProjectStore; subjectPrefix: string }, logger: Logger): void {
  addJsonEndpoint(
    service,
    "model-routes",
    deps.subjectPrefix + subjects.modelRoutes,
    ModelRoutesRequest,
    async ({ user, project_id: projectId }): Promise<Extract<ModelRoutesReply, { success: true }>> => {
      if (projectId !== undefined) await projectOfMember(deps.projects, projectId, user ?? "");
      return { success: true, routes: deps.router.view((id) => id === projectId) };
    },
    logger,
  );
}
