import { AppError } from "@agent-orchestrator/shared/runtime";
import { type RunStartRequest } from "@agent-orchestrator/shared/wire";
import { loopLimits } from "../loop/loop-limits.js";
import { admitTurn } from "./turn-admission.js";
import type { TurnDeps } from "./turn-deps.js";
import { executeTurn } from "./turn-execution.js";
import { failTurn, finishTurn } from "./turn-finish.js";
import { prepareTurn, systemPromptOf } from "./turn-preparation.js";
import { inPhase } from "./turn-phase.js";
import { holdSession } from "./turn-session.js";

/**
 * A user's turn, from its work-queue request to its one final event, as the phases of turn/ (ARCHITECTURE.md "One
 * chat turn"): admitted (the agent, the chat's project, the model route, budgets and settings), its session held
 * (marked running, compare-and-set), prepared (the system prompt and the conversation), executed (the loop),
 * then finished (saved, then `done`), or failed at any phase (`error`). `attempt` > 1 means an orchestrator died
 * during this turn and this one takes it over. `releaseSlot` gives the user's turn slot back (turn-entry.ts).
 */
export async function runTurn(deps: TurnDeps, request: RunStartRequest, attempt: number, releaseSlot?: () => Promise<void>): Promise<void> {
  const { config } = deps;
  const turn = deps.active.open(deps, request, attempt, {
    timeoutMs: config.TURN_TIMEOUT_MS,
    timeoutError: () => new AppError("TURN_TIMEOUT", `The turn took longer than ${config.TURN_TIMEOUT_MS} ms and was stopped`),
    limits: loopLimits(config),
    ...(releaseSlot ? { releaseSlot } : {}),
  });
  try {
    const admitted = await inPhase("admission", () => admitTurn(deps, turn));
    // made while the session is held: it only reads, and a turn that is not admitted never sees it
    const prompting = inPhase("preparation", () => systemPromptOf(deps, admitted));
    prompting.catch(() => undefined);
    const held = await inPhase("hold", () => holdSession(deps, admitted));
    if (!held) return;
    const prepared = prepareTurn(deps, held, await prompting);
    const ending = await inPhase("execution", () => executeTurn(deps, prepared));
    await inPhase("finish", () => finishTurn(deps, prepared, ending));
  } catch (error) {
    await inPhase("finish", () => failTurn(deps, turn, error));
  } finally {
    await deps.active.close(turn);
  }
}
