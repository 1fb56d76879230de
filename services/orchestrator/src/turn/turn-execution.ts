import { turnContextGuard } from "../compaction/turn-context-guard.js";
import { runAgentLoop, type TurnOutput } from "../loop/agent-loop.js";
import { dateNote } from "../loop/conversation-note.js";
import { checkBudget } from "./turn-admission.js";
import type { TurnDeps } from "./turn-deps.js";
import type { PreparedTurn } from "./turn-state.js";

/**
 * How a turn's execution ended, when it did not fail (a failure is the exception that turn-finish.ts `failTurn`
 * reports). Approvals (issue 39) add a second ending here, a turn paused at a tool call that waits for a
 * person's decision, which the finish stores instead of saving the turn as done.
 */
export interface TurnEnding {
  outcome: "completed";
  output: TurnOutput;
}

/**
 * Runs the agentic loop (loop/agent-loop.ts) from the conversation the turn was prepared with, on its route's
 * model (metered, within its budgets), its tools and subagents, under its limits and deadline; what the loop adds
 * goes into the turn's state as it comes. It reads nothing else of the turn, so a turn restored from a stored
 * state (its conversation and what it added so far) executes the same way.
 */
export async function executeTurn(deps: Pick<TurnDeps, "tools" | "config" | "models">, turn: PreparedTurn): Promise<TurnEnding> {
  const output = await runAgentLoop({
    model: turn.meter,
    messages: turn.conversation,
    conversationNote: dateNote(new Date()),
    tools: deps.tools,
    toolNames: turn.toolNames,
    context: turn.context,
    runId: turn.delivery,
    emit: (event) => turn.events.emit(event),
    signal: turn.controller.signal,
    limits: turn.limits,
    ...(turn.subagents ? { subagents: turn.subagents } : {}),
    added: turn.added,
    // every call within its route's window, compacted before it fills (docs/models.md "Compaction")
    contextGuard: turnContextGuard({
      thresholdPercent: deps.config.COMPACTION_THRESHOLD_PERCENT,
      routed: turn.route,
      summaries: deps.models.compaction(),
      meter: turn.meter,
      admit: () => checkBudget(turn),
      tools: deps.tools,
      context: turn.context,
      callPrefix: `${turn.delivery}:compaction`,
      logger: turn.log,
    }),
  });
  return { outcome: "completed", output };
}
