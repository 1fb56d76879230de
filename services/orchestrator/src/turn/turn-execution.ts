import { turnContextGuard } from "../compaction/turn-context-guard.js";
import { runAgentLoop, type TurnOutput } from "../loop/agent-loop.js";
import type { PausedCall, ToolGate } from "../loop/tool-gate.js";
import { budgetCheck } from "../spending/within-budget.js";
import type { HoldGate } from "./hold-gate.js";
import type { TurnDeps } from "./turn-deps.js";
import type { PreparedTurn } from "./turn-state.js";

/**
 * How a turn's execution ended, when it did not fail (a failure is the exception that turn-finish.ts `failTurn`
 * reports): completed, or paused at a tool call that waits for a member's decision, which the finish stores
 * (turn-pause.ts) instead of saving the turn as done.
 */
export type TurnEnding = { outcome: "completed"; output: TurnOutput } | { outcome: "paused"; output: TurnOutput; call: PausedCall };

/**
 * Runs the agentic loop (loop/agent-loop.ts) from the conversation the turn was prepared with, on its route's
 * model (metered, within its budgets), its tools and subagents, under its limits and deadline; what the loop adds
 * goes into the turn's state as it comes. It reads nothing else of the turn, so a turn restored from a stored
 * state (its conversation and what it added so far) executes the same way. A user's turn runs behind `gate` while
 * its session's hold is written (hold-gate.ts).
 */
export async function executeTurn(deps: Pick<TurnDeps, "tools" | "config" | "approvals">, turn: PreparedTurn, gate?: HoldGate): Promise<TurnEnding> {
  const output = await runAgentLoop({
    model: gate ? gate.model(turn.meter) : turn.meter,
    messages: turn.conversation,
    today: new Date(),
    tools: deps.tools,
    toolNames: turn.toolNames,
    context: turn.context,
    runId: turn.delivery,
    emit: gate ? gate.emit : (event) => turn.events.emit(event),
    signal: turn.controller.signal,
    limits: turn.limits,
    ...(turn.subagents ? { subagents: turn.subagents } : {}),
    added: turn.added,
    gate: approvalGate(deps, turn),
    ...(turn.resumed ? { resume: { calls: turn.resumed.calls, decision: turn.resumed.decision } } : {}),
    // every call within its route's window, compacted before it fills (docs/models.md "Compaction")
    contextGuard: turnContextGuard({
      thresholdPercent: deps.config.COMPACTION_THRESHOLD_PERCENT,
      routed: turn.route,
      summaries: turn.summaries,
      meter: turn.meter,
      admit: budgetCheck(turn.budget, turn.spending),
      tools: deps.tools,
      context: turn.context,
      callPrefix: `${turn.delivery}:compaction`,
      logger: turn.log,
    }),
  });
  return output.paused ? { outcome: "paused", output, call: output.paused } : { outcome: "completed", output };
}

/**
 * The turn's approval policies as the loop asks them (docs/approvals.md): a call that asks stops a user's turn, which
 * waits; a turn that cannot wait (a subagent, a door that cannot pause, an orchestrator without the approvals store)
 * is told the call is refused.
 */
function approvalGate(deps: Pick<TurnDeps, "config" | "approvals">, turn: PreparedTurn): ToolGate {
  const cannotWait = turn.parent
    ? "a subagent cannot wait for a member's decision"
    : turn.request.approval_mode === "refuse"
      ? "this client cannot wait for a member's decision (approve it from a client that can, or allow it in the project's settings)"
      : deps.approvals
        ? undefined
        : "this orchestrator keeps no pending calls";
  return { approvals: turn.approvals ?? deps.config.APPROVALS_DEFAULTS, cannotWait };
}
