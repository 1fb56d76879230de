import { Router } from "express";
import { type AuditPublisher } from "@agent-orchestrator/shared/runtime";
import { GreetingQuery, GreetingReply, SessionStartBody, SessionStartReply, subjects } from "@agent-orchestrator/shared/wire";
import { audited, noteAudit } from "../audit/audited.js";
import { currentSignIn, currentUser } from "../auth/auth.js";
import type { GatewayContext } from "../gateway-context.js";
import { callService } from "../nats-call.js";
import { parseInput } from "../http/parse-input.js";
import { defaultProjectAlias } from "../access/project-access.js";
import { callerName } from "../settings/caller-name.js";

/**
 * An agent's greeting, built by the orchestrator without a model call (services/orchestrator/src/sessions/greeting.ts):
 * `POST /api/sessions` starts a chat that opens with it (continued by `POST /api/chat` with its `session_id`), and
 * `GET /api/agents/:id/greeting` shows it without starting one. The project is decided as `POST /api/chat` decides a
 * new chat's: absent or `default` is the caller's default project, and the orchestrator checks the caller's role.
 * Mounted before the agent routes, whose `/api/agents/*id` would take `…/greeting` for part of an id.
 */
export function greetingRoutes(context: GatewayContext, { audit }: { audit: AuditPublisher }): Router {
  const router = Router();
  const projectOf = (projectId: string | undefined) => (projectId === defaultProjectAlias ? undefined : projectId);

  router.post(
    "/api/sessions",
    audited(context, audit, "chat_started"),
    async (request, response) => {
      const body = parseInput(SessionStartBody, request.body ?? {}, "body");
      const reply = await callService(
        context,
        subjects.sessionStart,
        {
          user: currentUser(response),
          agent_id: body.agent_id,
          project_id: projectOf(body.project_id),
          caller_name: callerName(context.config, currentUser(response), currentSignIn(response)),
          ...(body.branch === undefined ? {} : { branch: body.branch }),
        },
        SessionStartReply,
      );
      noteAudit(response, { project_id: reply.project_id, target: reply.session_id });
      response.status(201).json(reply);
    },
  );

  router.get(
    "/api/agents/*id/greeting",
    async (request, response) => {
      const query = parseInput(GreetingQuery, request.query, "query");
      const agentId = (request.params["id"] as unknown as string[]).join("/");
      const reply = await callService(context, subjects.sessionGreeting, { user: currentUser(response), agent_id: agentId, project_id: projectOf(query.project_id), caller_name: callerName(context.config, currentUser(response), currentSignIn(response)) }, GreetingReply);
      response.json(reply);
    },
  );
  return router;
}
