import { isDeepStrictEqual } from "node:util";
import type { ApprovalRecord, ApprovalView } from "@agent-orchestrator/shared/wire";
import { previewArguments } from "../events/bounded-event.js";

/** Whether a decision's arguments differ from the model's: the same JSON value is no edit. */
export const argumentsEdited = (record: ApprovalRecord): boolean =>
  record.decided?.arguments !== undefined && !isDeepStrictEqual(record.decided.arguments, record.arguments);

/**
 * A record as a client sees it: the arguments previewed within `budgetBytes` (a chat's few calls show more than a
 * listing across projects), and whether the caller may decide it.
 */
export function approvalView(record: ApprovalRecord, mayDecide: boolean, budgetBytes: number): ApprovalView {
  const shown = previewArguments(record.arguments, budgetBytes);
  const { decided } = record;
  return {
    approval_id: record.approval_id,
    session_id: record.session_id,
    project_id: record.project_id,
    agent_id: record.agent_id,
    call_id: record.call_id,
    tool: record.tool,
    arguments: shown.arguments,
    ...(shown.truncated ? { arguments_truncated: true } : {}),
    reason: record.reason,
    requester: record.requester,
    deciders: record.deciders,
    created_at: record.created_at,
    expires_at: record.expires_at,
    status: record.status,
    ...(decided
      ? {
          decided: {
            outcome: decided.outcome,
            ...(decided.by === undefined ? {} : { by: decided.by }),
            at: decided.at,
            ...(argumentsEdited(record) ? { arguments_edited: true } : {}),
            ...(decided.message === undefined ? {} : { message: decided.message }),
          },
        }
      : {}),
    may_decide: mayDecide && record.status === "pending",
  };
}
