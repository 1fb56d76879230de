import { Router } from "express";
import { methodOverview, type OverviewFile } from "@agent-orchestrator/shared/bmad";
import { FilesListReply, HelpCatalogueReply, subjects } from "@agent-orchestrator/shared/wire";
import { currentUser } from "../auth/auth.js";
import type { GatewayContext } from "../gateway-context.js";
import { callService } from "../nats-call.js";
import { getProject } from "../access/project-access.js";
import { repositoryOverviewFiles } from "./repository-overview-files.js";

/**
 * `GET /api/projects/:id/overview`: the method at a glance for any member (docs/projects.md "The method at a
 * glance"): BMAD's phases with the documents the project has, who wrote each and when, and the next
 * recommended workflow with the agent that runs it, from the install's help catalogue (the registry's) and
 * the project's files (the tool-runner's): its stored files, or in a project with a git repository the default
 * branch's (repository-overview-files.ts).
 */
export function projectOverviewRoute(context: GatewayContext): Router {
  const router = Router();
  router.get("/api/projects/:id/overview", async (request, response) => {
    const project = await getProject(context, currentUser(response), request.params["id"]);
    const [help, files] = await Promise.all([callService(context, subjects.registryHelpGet, {}, HelpCatalogueReply), projectDocuments(context, project.id)]);
    response.json({ success: true, overview: methodOverview(files, help.entries, help.source) });
  });
  return router;
}

async function projectDocuments(context: GatewayContext, project: string): Promise<OverviewFile[]> {
  const inRepository = await repositoryOverviewFiles(context, project);
  if (inRepository !== null) return inRepository;
  return (await callService(context, subjects.files("list"), { space: { kind: "project", id: project } }, FilesListReply)).files;
}
