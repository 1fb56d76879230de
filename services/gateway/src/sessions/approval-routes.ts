import { Router } from "express";
import { ApprovalDecisionBody, ApprovalListReply, subjects } from "@agent-orchestrator/shared/wire";
import { checkedSessionId } from "../access/session-access.js";
import { currentUser } from "../auth/auth.js";
import { decideApproval } from "../chat/approval-decision.js";
import type { GatewayContext } from "../gateway-context.js";
import { parseInput } from "../http/parse-input.js";
import { callService } from "../nats-call.js";

/**
 * Tool calls waiting for a member's decision (docs/approvals.md): every one the caller may decide across their
 * projects (`GET /api/approvals`), a chat's (`GET /api/sessions/:id/approvals`, any member of its project), and a
 * decision on one (`POST /api/sessions/:id/approvals/:approval_id`). The orchestrator checks who may, records the
 * decision once and writes its audit record.
 */
export function approvalRoutes(context: GatewayContext): Router {
  const router = Router();

  router.get("/api/approvals", async (_request, response) => {
    const reply = await callService(context, subjects.approvalList, { user: currentUser(response) }, ApprovalListReply);
    response.json({ success: true, approvals: reply.approvals });
  });

  router.get("/api/sessions/:id/approvals", async (request, response) => {
    const body = { user: currentUser(response), session_id: checkedSessionId(request.params["id"]) };
    const reply = await callService(context, subjects.approvalList, body, ApprovalListReply);
    response.json({ success: true, approvals: reply.approvals });
  });

  router.post("/api/sessions/:id/approvals/:approval_id", async (request, response) => {
    const decision = parseInput(ApprovalDecisionBody, request.body, "body");
    const caller = { user: currentUser(response), sessionId: request.params["id"], approvalId: request.params["approval_id"], clientAddress: context.clientAddress(request) };
    response.json({ success: true, approval: await decideApproval(context, caller, decision) });
  });
  return router;
}
