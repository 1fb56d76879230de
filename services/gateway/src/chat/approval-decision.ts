import { AppError } from "@agent-orchestrator/shared/runtime";
import { ApprovalDecideReply, approvalIdSchema, subjects, type ApprovalDecisionBody, type ApprovalView } from "@agent-orchestrator/shared/wire";
import { checkedSessionId } from "../access/session-access.js";
import type { GatewayContext } from "../gateway-context.js";
import { callService } from "../nats-call.js";

/** Who decides, on which chat's call, from where. */
export interface DecisionCaller {
  user: string;
  sessionId: string | undefined;
  approvalId: string | undefined;
  clientAddress: string;
}

/**
 * A member's decision on a pending tool call, from any door (`POST /api/sessions/:id/approvals/:approval_id`, the
 * WebSocket's `approve`; docs/approvals.md): the orchestrator checks who may decide, records it once, audits it and
 * resumes the turn. An id that cannot be one is answered as a missing one.
 */
export async function decideApproval(context: Pick<GatewayContext, "connection" | "subjectPrefix" | "config">, caller: DecisionCaller, body: ApprovalDecisionBody): Promise<ApprovalView> {
  const sessionId = checkedSessionId(caller.sessionId);
  const approvalId = approvalIdSchema.safeParse(caller.approvalId);
  if (!approvalId.success) throw new AppError("APPROVAL_NOT_FOUND", "No such pending tool call in this chat");
  const request = { ...body, user: caller.user, session_id: sessionId, approval_id: approvalId.data, client_address: caller.clientAddress };
  return (await callService(context, subjects.approvalDecide, request, ApprovalDecideReply)).approval;
}
