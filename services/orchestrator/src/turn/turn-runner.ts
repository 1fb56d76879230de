import { AppError } from "@agent-orchestrator/shared/runtime";
import { type RunStartRequest } from "@agent-orchestrator/shared/wire";
import { loopLimits } from "../loop/loop-limits.js";
import { admitTurn } from "./turn-admission.js";
import type { TurnDeps } from "./turn-deps.js";
import { executeTurn } from "./turn-execution.js";
import { failTurn, finishTurn } from "./turn-finish.js";
import { prepareTurn } from "./turn-preparation.js";
import { inPhase } from "./turn-phase.js";
import { holdSession } from "./turn-session.js";
import type { LastEvent } from "./turn-state.js";

/**
 * A user's turn, from its work-queue request to its one final event, as the phases of turn/ (ARCHITECTURE.md "One
 * chat turn"): admitted (the agent, the chat's project, the model route, budgets and settings), its session held
 * (marked running, compare-and-set) while it is prepared (the system prompt, then the conversation), executed (the
 * loop), then finished (saved), or failed at any phase; its close publishes its one last event (`done`, `error`).
 * `attempt` > 1 means an orchestrator died during this turn and this one takes it over. `releaseSlot` gives the
 * user's turn slot back (turn-entry.ts).
 */
export async function runTurn(deps: TurnDeps, request: RunStartRequest, attempt: number, releaseSlot?: () => Promise<void>): Promise<void> {
  const { config } = deps;
  const turn = deps.active.open(deps, request, attempt, {
    timeoutMs: config.TURN_TIMEOUT_MS,
    timeoutError: () => new AppError("TURN_TIMEOUT", `The turn took longer than ${config.TURN_TIMEOUT_MS} ms and was stopped`),
    limits: loopLimits(config),
    ...(releaseSlot ? { releaseSlot } : {}),
  });
  let last: LastEvent | undefined;
  try {
    const admitted = await inPhase("admission", () => admitTurn(deps, turn));
    const holding = inPhase("hold", () => holdSession(deps, admitted));
    const prepared = await inPhase("preparation", () => prepareTurn(deps, admitted, holding));
    if (!prepared) return;
    const ending = await inPhase("execution", () => executeTurn(deps, prepared));
    last = await inPhase("finish", () => finishTurn(deps, prepared, ending));
  } catch (error) {
    last = await inPhase("finish", () => failTurn(deps, turn, error));
  } finally {
    await deps.active.close(turn, last);
  }
}
