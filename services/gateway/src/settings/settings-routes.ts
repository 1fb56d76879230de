import { Router } from "express";
import type { z } from "zod";
import { type AuditPublisher } from "@agent-orchestrator/shared/runtime";
import { MemberSettings, MemberSettingsReply, ProjectSettings, ProjectSettingsReply, subjects, type ProjectOperation } from "@agent-orchestrator/shared/wire";
import { audited, noteAudit } from "../audit/audited.js";
import { currentSignIn, currentUser } from "../auth/auth.js";
import type { GatewayContext } from "../gateway-context.js";
import { parseInput } from "../http/parse-input.js";
import { callService } from "../nats-call.js";
import { resolveProjectId } from "../access/project-access.js";
import { callerName } from "./caller-name.js";

/**
 * BMAD's settings (docs/settings.md): a project's (`/api/projects/:id/settings`: any member reads, the owner writes)
 * and the caller's own (`/api/me/settings`). A `PUT` replaces the top-level keys its body names; the orchestrator
 * keeps the documents and every rule of who may write them.
 */
export function settingsRoutes(context: GatewayContext, { audit }: { audit: AuditPublisher }): Router {
  const router = Router();
  const ask = <S extends z.ZodType>(operation: ProjectOperation, body: object, schema: S) => callService(context, subjects.projectRequest(operation), body, schema);

  router.get("/api/projects/:id/settings", async (request, response) => {
    const user = currentUser(response);
    const projectId = await resolveProjectId(context, user, request.params["id"]);
    const reply = await ask("settings", { user, project_id: projectId }, ProjectSettingsReply);
    response.json({ success: true, project_id: reply.project_id, settings: reply.settings, defaults: reply.defaults });
  });

  router.put("/api/projects/:id/settings", audited(context, audit, "project_settings_changed"), async (request, response) => {
    const user = currentUser(response);
    const settings = parseInput(ProjectSettings, request.body, "body");
    const projectId = await resolveProjectId(context, user, request.params["id"]);
    noteAudit(response, { project_id: projectId, target: Object.keys(settings).sort().join(",") });
    const reply = await ask("settings_put", { user, project_id: projectId, settings }, ProjectSettingsReply);
    response.json({ success: true, project_id: reply.project_id, settings: reply.settings, defaults: reply.defaults });
  });

  router.get("/api/me/settings", async (_request, response) => {
    const user = currentUser(response);
    const name = callerName(context.config, user, currentSignIn(response));
    const reply = await ask("my_settings", { user, ...(name ? { caller_name: name } : {}) }, MemberSettingsReply);
    response.json({ success: true, settings: reply.settings, defaults: reply.defaults });
  });

  router.put("/api/me/settings", async (request, response) => {
    const user = currentUser(response);
    const settings = parseInput(MemberSettings, request.body, "body");
    const name = callerName(context.config, user, currentSignIn(response));
    const reply = await ask("my_settings_put", { user, ...(name ? { caller_name: name } : {}), settings }, MemberSettingsReply);
    response.json({ success: true, settings: reply.settings, defaults: reply.defaults });
  });
  return router;
}
