import { setTimeout as sleep } from "node:timers/promises";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { AppError, retryWhileLeaderless } from "@agent-orchestrator/shared/runtime";
import type { ApprovalRecord, ConversationMessage, RunStartRequest, SessionRecord } from "@agent-orchestrator/shared/wire";
import type { ApprovalStore } from "../approvals/approval-store.js";
import { loopLimits } from "../loop/loop-limits.js";
import type { StreamedToolCall } from "../loop/tool-call-accumulator.js";
import type { CallDecision } from "../loop/tool-gate.js";
import { admitTurn } from "./turn-admission.js";
import type { TurnDeps } from "./turn-deps.js";
import { executeTurn } from "./turn-execution.js";
import { failTurn, finishTurn } from "./turn-finish.js";
import { prepareConversation, systemPromptOf } from "./turn-preparation.js";
import { announceTurn } from "./turn-session.js";
import type { HeldSession, LastEvent, TurnState } from "./turn-state.js";

/** The statuses a call leaves `pending` for; its turn resumes from any of them. */
const decidedStatuses = ["approved", "rejected", "expired", "cancelled"] as const;
/** How long a resume waits for the pause it follows to finish saving the chat (a decision made within milliseconds). */
const pauseSaveWaitMs = 5_000;

/**
 * Resumes a user's turn that paused at a tool call (docs/approvals.md "Resuming"), on whichever orchestrator replica
 * took the resume from the work queue: the chat is held again (its head must still name the paused run, so a resume
 * delivered twice runs once), the call's record marked resumed, the turn admitted again (the owner's role, the route,
 * budgets and settings as they are now), the system prompt made again (byte-stable), and the loop goes on from the
 * chat as the pause saved it: the decided call first (approved: run, with a member's arguments when they changed
 * them, under a key every delivery shares; rejected: the member's words as a tool error), the calls after it, then
 * the model. An expired call or a cancelled chat ends the turn (APPROVAL_EXPIRED, CANCELLED), keeping what it wrote.
 * The resumed turn counts on from the paused one's model calls and running time; the wait is not counted.
 */
export async function runResumedTurn(deps: TurnDeps & { approvals: ApprovalStore }, request: RunStartRequest, attempt: number, releaseSlot?: () => Promise<void>): Promise<void> {
  const log = deps.logger.child({ sessionId: request.session_id, runId: request.run_id, attempt });
  const approvalId = request.resume?.approval_id ?? "";
  const stored = await deps.approvals.get(request.session_id, approvalId);
  if (!stored || stored.record.status === "pending") return log.warn({ approvalId }, "a resume without a decided tool call was dropped");
  const { record } = stored;
  const { config } = deps;
  const used = record.turn ?? { iterations: 0, elapsed_ms: 0 };
  const timeoutMs = Math.max(1_000, config.TURN_TIMEOUT_MS - used.elapsed_ms);
  const turn = deps.active.open(deps, request, attempt, {
    timeoutMs,
    timeoutError: () => new AppError("TURN_TIMEOUT", `The turn took longer than ${config.TURN_TIMEOUT_MS} ms of running time and was stopped`),
    limits: { ...loopLimits(config), maxIterations: Math.max(0, config.MAX_ITERATIONS - used.iterations) },
    ...(releaseSlot ? { releaseSlot } : {}),
  });
  let last: LastEvent | undefined;
  try {
    const held = await holdPausedSession(deps, turn, record);
    if (held === "dropped") return;
    Object.assign(turn, { session: held });
    const decided = await deps.approvals.transition(record.session_id, record.approval_id, [...decidedStatuses, "resumed"], (current) => ({ ...current, status: "resumed" }));
    turn.resumed = { record: decided.record, calls: unansweredCalls(held.record.messages), decision: decisionOf(decided.record) };
    const admitted = await admitTurn(deps, turn);
    announceTurn(admitted);
    turn.events.emit({
      type: "approval_decided",
      approval_id: record.approval_id,
      decision: decided.record.decided?.outcome ?? "expire",
      ...(decided.record.decided?.by === undefined ? {} : { by: decided.record.decided.by }),
      ...(decided.record.decided?.arguments === undefined ? {} : { arguments_edited: true }),
    });
    const prepared = prepareConversation(deps, Object.assign(admitted, { session: held }), held.record.messages, await systemPromptOf(deps, admitted));
    last = await finishTurn(deps, prepared, await executeTurn(deps, prepared));
  } catch (error) {
    last = await failTurn(deps, turn, error);
  } finally {
    // the record stays, resumed, so a decision sent again is told who decided; the sweep purges it after a week
    await deps.active.close(turn, last);
  }
}

/**
 * Holds the chat for the resumed run: its head must say it awaits a decision on the run that paused, and is marked
 * running this run by compare-and-set; a redelivery of this resume, whose orchestrator died, takes the running
 * chat over. Anything else drops this delivery: the turn already resumed, or the chat moved on or is gone.
 */
async function holdPausedSession(deps: Pick<TurnDeps, "store" | "approvals">, turn: TurnState, record: ApprovalRecord): Promise<HeldSession | "dropped"> {
  const { request, attempt, log } = turn;
  const waitUntil = Date.now() + pauseSaveWaitMs;
  for (;;) {
    const stored = await retryWhileLeaderless(() => deps.store.get(request.session_id, record.requester));
    if (!stored) {
      log.info("the paused chat is gone; its resume is dropped");
      await deps.approvals?.forget(record);
      return "dropped";
    }
    const head = stored.record;
    if (head.status === "running" && head.run_id === request.run_id) {
      if (attempt > 1) return stored;
      log.info("the resumed turn runs elsewhere; this delivery is dropped");
      return "dropped";
    }
    if (head.status === "awaiting_approval" && head.last_run_id === record.run_id) {
      const running: SessionRecord = { ...head, status: "running", run_id: request.run_id, last_run_id: request.run_id, run_started_at: new Date().toISOString() };
      return { record: running, version: await retryWhileLeaderless(() => deps.store.update(running, stored.version)) };
    }
    // decided within the moment between the call's record and the chat's save: the pause is still saving
    if (head.status === "running" && head.run_id === record.run_id && Date.now() < waitUntil) {
      await sleep(250);
      continue;
    }
    log.info({ status: head.status }, "the chat no longer waits for this call; its resume is dropped");
    return "dropped";
  }
}

/** The calls of the chat's last answer that have no result yet, in the model's order: where the paused turn stopped. */
function unansweredCalls(messages: readonly ConversationMessage[]): StreamedToolCall[] {
  const lastAnswer = messages.findLastIndex((message) => message.role === "assistant");
  const answer = messages[lastAnswer] as ChatCompletionMessageParam | undefined;
  if (answer?.role !== "assistant" || !answer.tool_calls) return [];
  const answered = new Set(messages.slice(lastAnswer + 1).flatMap((message) => (message.role === "tool" && typeof message["tool_call_id"] === "string" ? [message["tool_call_id"]] : [])));
  return answer.tool_calls.flatMap((call) =>
    call.type === "function" && !answered.has(call.id) ? [{ id: call.id, name: call.function.name, arguments: call.function.arguments }] : [],
  );
}

/** The decision the resumed turn runs its call with; the call's key is the approval's, the same on every delivery. */
function decisionOf(record: ApprovalRecord): CallDecision {
  const { decided } = record;
  return {
    callId: record.call_id,
    outcome: decided?.outcome ?? "expire",
    by: decided?.by,
    arguments: decided?.arguments,
    message: decided?.message,
    callKey: `${record.approval_id}:${record.call_id}`,
    ...(decided?.outcome === "expire" ? { expiredAt: record.expires_at } : {}),
  };
}
