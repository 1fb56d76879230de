import { AppError } from "@agent-orchestrator/shared/runtime";
import { addUsage, zeroUsage, type AgentModel, type ConversationMessage, type RunEventBody, type SessionRecord, type SessionStatus, type Usage } from "@agent-orchestrator/shared/wire";
import type { TurnOutput } from "../loop/agent-loop.js";
import type { SubagentRunner } from "../subagents/subagent-runner.js";
import { storedUserMessage } from "./attached-user-message.js";
import { errorEvent } from "./error-event.js";
import { keptOnFailure } from "./kept-on-failure.js";
import type { TurnDeps } from "./turn-deps.js";
import type { TurnEnding } from "./turn-execution.js";
import { saveTurnEnd } from "../sessions/session-store.js";
import { spentBeforeFailure } from "./turn-spending.js";
import { pauseTurn } from "./turn-pause.js";
import { withClosedToolCalls } from "./closed-tool-calls.js";
import type { LastEvent, PreparedTurn, TurnState } from "./turn-state.js";
import { recordTurnEnd } from "./turn-telemetry.js";

/**
 * Finishes a turn whose execution ended: its tokens with its subagents', counted in the totals; a user's turn
 * saves its session with what the turn added and gives its slot back before its `done` is published (as the turn
 * closes), so a client that hears `done` reads the final state; a subagent's `done` goes to its parent, which makes
 * it the tool result.
 */
export async function finishTurn(deps: Pick<TurnDeps, "store" | "approvals" | "config">, turn: PreparedTurn, ending: TurnEnding): Promise<LastEvent> {
  if (ending.outcome === "paused") return pauseTurn(deps, turn, ending);
  const { output } = ending;
  const { model } = turn.route;
  // the subagents' tokens are this turn's too, a timed-out one's once it has reported
  await turn.subagents?.settled();
  const usage = addUsage(output.usage, turn.subagents?.usage ?? zeroUsage());
  if (!turn.session) {
    await turn.spending.endSubagent();
    turn.log.info({ iterations: output.iterations, usage, model }, "subagent completed");
    return doneEvent(output, usage, turn.subagents, usage, model);
  }
  const session = completed(turn.session.record, turn, output, usage);
  // counted before the session's head is saved: a crash between the two runs the turn again, and both deliveries were paid for
  await saveTurnEnd(deps.store, turn.session.version, session, "completed", turn.spending.endTurn(usage));
  await turn.releaseSlot?.();
  turn.log.info({ ...recordTurnEnd({ agentId: turn.agent.id, outcome: "completed", startedAt: turn.startedAt, span: turn.span, output, usage }), model }, "turn completed");
  return doneEvent(output, usage, turn.subagents, session.usage, model);
}

/**
 * Ends a turn that failed, was refused, cancelled or timed out, at whatever phase: its one `error` event carries
 * what it spent before (the stopped subagents' included), as a success's `done` does. A user's turn that held its
 * session saves it as it was (or with what the turn did: kept-on-failure.ts) and marked failed or cancelled.
 */
export async function failTurn(deps: Pick<TurnDeps, "store">, turn: TurnState, error: unknown): Promise<LastEvent> {
  const spent = await spentBeforeFailure(turn.meter, turn.subagents);
  if (turn.parent) {
    if (AppError.is(error)) turn.log.warn({ code: error.code, usage: spent?.usage }, error.message);
    else turn.log.error({ err: error, usage: spent?.usage }, "subagent failed");
    await turn.spending?.endSubagent();
    // what it spent goes to its parent on the error event, which sums it into the turn's usage
    return errorEvent(error, spent);
  }
  const { session } = turn;
  const sessionUsage = session ? addUsage(session.record.usage, spent?.usage ?? zeroUsage()) : undefined;
  const ended = recordTurnEnd({
    // an agent id the registry did not confirm is the client's text: never a metric label
    agentId: turn.agent?.id ?? "unknown",
    outcome: AppError.is(error) ? error.code : "INTERNAL",
    startedAt: turn.startedAt,
    span: turn.span,
    ...(spent ? { usage: spent.usage } : {}),
  });
  if (AppError.is(error)) turn.log.warn({ ...ended, code: error.code, cause: describeCause(error.cause) }, error.message);
  else turn.log.error({ ...ended, err: error }, "turn failed");
  if (session && sessionUsage) {
    const counted = turn.spending?.endTurn(spent?.usage);
    const status: SessionStatus = AppError.is(error) && error.code === "CANCELLED" ? "cancelled" : "failed";
    // a resumed turn's chat holds its user's message and the answer it stopped at: it keeps them and what it added,
    // each call of them answered (closed-tool-calls.ts)
    const kept = turn.resumed
      ? { ...session.record, messages: withClosedToolCalls([...session.record.messages, ...(turn.added as ConversationMessage[])], error) as SessionRecord["messages"] }
      : keptOnFailure(error, session.record, storedUserMessage(turn.request), turn.added);
    await saveTurnEnd(deps.store, session.version, { ...kept, usage: sessionUsage }, status, counted).catch((saveError: unknown) => turn.log.error({ err: saveError }, "session status not saved"));
    await counted;
  }
  await turn.releaseSlot?.();
  return errorEvent(error, spent, sessionUsage);
}

/**
 * The session of a completed turn: the user's message and what the turn added, its tokens, one turn more. A resumed
 * turn's user message is in the chat already, and the turn was counted when it paused.
 */
function completed(record: SessionRecord, turn: PreparedTurn, output: TurnOutput, usage: Usage): SessionRecord {
  return {
    ...record,
    messages: [...record.messages, ...(turn.userMessage ? [turn.userMessage] : []), ...output.added] as SessionRecord["messages"],
    usage: addUsage(record.usage, usage),
    turns: record.turns + (turn.resumed ? 0 : 1),
  };
}

/**
 * The `done` event of a turn or a subagent: the loop's answer (every model call's text; each door of the gateway
 * gives it as it is, cut only to fit a NATS message: bounded-event.ts), the tokens of the turn with its
 * subagents' (`usage`), each model call's, each subagent's when there were any, the session's total so far, and
 * the model that answered (its route).
 */
function doneEvent(
  output: TurnOutput,
  usage: Usage,
  subagents: SubagentRunner | undefined,
  sessionUsage: Usage,
  model: AgentModel,
): Extract<RunEventBody, { type: "done" }> {
  return {
    type: "done",
    response: output.response,
    iterations: output.iterations,
    usage,
    usage_by_call: output.usageByCall,
    ...(subagents?.usageBySubagent.length ? { usage_by_subagent: [...subagents.usageBySubagent] } : {}),
    session_usage: sessionUsage,
    model,
  };
}

const describeCause = (cause: unknown): string | undefined => (cause instanceof Error ? `${cause.name}: ${cause.message}` : undefined);
