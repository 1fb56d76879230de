import { randomUUID } from "node:crypto";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { addUsage, zeroUsage, type ApprovalRecord, type RunEventBody, type SessionRecord } from "@agent-orchestrator/shared/wire";
import { previewArguments } from "../events/bounded-event.js";
import type { TurnDeps } from "./turn-deps.js";
import type { TurnEnding } from "./turn-execution.js";
import { saveTurnEnd } from "../sessions/session-store.js";
import type { LastEvent, PreparedTurn } from "./turn-state.js";

/**
 * Pauses a user's turn at a tool call that waits for a member's decision (docs/approvals.md "Pausing"): the call is
 * stored as a pending approval (who may decide, until when, what the turn had used), then the chat is saved with
 * what the turn did so far (the user's message, the answer with its calls, the results of the calls that ran) and
 * marked `awaiting_approval`; the turn gives its user slot back, its run ends with `approval_required`, and nothing of
 * it stays in this process. The record comes first: a crash between the two leaves the chat running, and the work
 * queue gives the turn to another replica as any crashed turn.
 */
export async function pauseTurn(
  deps: Pick<TurnDeps, "store" | "approvals" | "config">,
  turn: PreparedTurn,
  ending: Extract<TurnEnding, { outcome: "paused" }>,
): Promise<LastEvent> {
  const { session, request } = turn;
  if (!session || !deps.approvals) throw new AppError("INTERNAL", "only a user's turn with the approvals store can pause");
  const { output, call } = ending;
  await turn.subagents?.settled();
  const usage = addUsage(output.usage, turn.subagents?.usage ?? zeroUsage());
  const approvals = turn.approvals ?? deps.config.APPROVALS_DEFAULTS;
  const before = turn.resumed?.record.turn;
  const created = new Date();
  const record: ApprovalRecord = {
    approval_id: randomUUID(),
    session_id: request.session_id,
    project_id: turn.place.projectId,
    run_id: request.run_id,
    agent_id: turn.agent.id,
    call_id: call.id,
    tool: call.name,
    arguments: call.args,
    reason: call.reason,
    requester: request.owner,
    deciders: approvals.deciders,
    created_at: created.toISOString(),
    expires_at: new Date(created.getTime() + approvals.expire_minutes * 60_000).toISOString(),
    status: "pending",
    turn: {
      iterations: (before?.iterations ?? 0) + output.iterations,
      elapsed_ms: Math.round((before?.elapsed_ms ?? 0) + performance.now() - turn.startedAt),
      ...(request.caller_name ? { caller_name: request.caller_name } : {}),
    },
  };
  await deps.approvals.create(record);
  const paused: SessionRecord = {
    ...session.record,
    // a resumed turn's user message is already in the chat, and it was counted when it first paused
    messages: [...session.record.messages, ...(turn.userMessage ? [turn.userMessage] : []), ...output.added] as SessionRecord["messages"],
    usage: addUsage(session.record.usage, usage),
    turns: session.record.turns + (turn.resumed ? 0 : 1),
  };
  await saveTurnEnd(deps.store, session.version, paused, "awaiting_approval", turn.spending.endTurn(usage));
  await turn.releaseSlot?.();
  turn.log.info({ approvalId: record.approval_id, tool: call.name, callId: call.id, usage, model: turn.route.model }, "turn paused for a decision on a tool call");
  return approvalRequired(record);
}

/** The run's last event: the call that waits, its arguments previewed as on `tool_call`. */
function approvalRequired(record: ApprovalRecord): Extract<RunEventBody, { type: "approval_required" }> {
  const shown = previewArguments(record.arguments);
  return {
    type: "approval_required",
    approval_id: record.approval_id,
    call_id: record.call_id,
    tool: record.tool,
    arguments: shown.arguments,
    ...(shown.truncated ? { arguments_truncated: true } : {}),
    reason: record.reason,
    expires_at: record.expires_at,
  };
}
