import { Router } from "express";
import { subjects, UserUsageReply } from "@agent-orchestrator/shared/wire";
import { currentUser } from "../auth/auth.js";
import type { GatewayContext } from "../gateway-context.js";
import { callService } from "../nats-call.js";

/** `GET /api/usage`: what the caller spent across every project, today and this month, and their daily budget (docs/models.md "Cost totals"). */
export function usageRoutes(context: GatewayContext): Router {
  const router = Router();
  router.get("/api/usage", async (_request, response) => {
    const reply = await callService(context, subjects.usageUser, { user: currentUser(response) }, UserUsageReply);
    response.json({ success: true, usage: reply.usage });
  });
  return router;
}
