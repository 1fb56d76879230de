import { Router } from "express";
import { methodOverview } from "@agent-orchestrator/shared/bmad";
import { FilesListReply, HelpCatalogueReply, subjects } from "@agent-orchestrator/shared/wire";
import { currentUser } from "../auth/auth.js";
import type { GatewayContext } from "../gateway-context.js";
import { callService } from "../nats-call.js";
import { getProject } from "../access/project-access.js";

/**
 * `GET /api/projects/:id/overview`: the method at a glance for any member (docs/projects.md "The method at a
 * glance"): BMAD's phases with the documents the project has, who wrote each and when, and the next
 * recommended workflow with the agent that runs it, from the install's help catalogue (the registry's) and
 * the project's files (the tool-runner's).
 */
export function projectOverviewRoute(context: GatewayContext): Router {
  const router = Router();
  router.get("/api/projects/:id/overview", async (request, response) => {
    const project = await getProject(context, currentUser(response), request.params["id"]);
    const [help, listing] = await Promise.all([
      callService(context, subjects.registryHelpGet, {}, HelpCatalogueReply),
      callService(context, subjects.files("list"), { space: { kind: "project", id: project.id } }, FilesListReply),
    ]);
    response.json({ success: true, overview: methodOverview(listing.files, help.entries, help.source) });
  });
  return router;
}
