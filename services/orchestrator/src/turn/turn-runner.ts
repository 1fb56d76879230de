import { AppError } from "@agent-orchestrator/shared/runtime";
import { type RunStartRequest } from "@agent-orchestrator/shared/wire";
import { loopLimits } from "../loop/loop-limits.js";
import { HoldGate } from "./hold-gate.js";
import { admitTurn } from "./turn-admission.js";
import type { TurnDeps } from "./turn-deps.js";
import { executeTurn } from "./turn-execution.js";
import { failTurn, finishTurn } from "./turn-finish.js";
import { prepareTurn } from "./turn-preparation.js";
import { inPhase } from "./turn-phase.js";
import { callsAhead, holdSession } from "./turn-session.js";
import type { LastEvent } from "./turn-state.js";

/**
 * A user's turn, from its work-queue request to its one final event, as the phases of turn/ (ARCHITECTURE.md "One
 * chat turn"): admitted (the agent, the chat's project, the model route, budgets and settings), its session held
 * (marked running, compare-and-set) while it is prepared (the system prompt and the conversation) and executed (the
 * loop, behind the hold: hold-gate.ts), then finished (saved), or failed at any phase; its close publishes its one last event (`done`, `error`).
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
    // prepared, and its model called, while its session's hold is written: what it shows or does waits (hold-gate.ts)
    const gate = new HoldGate(admitted, inPhase("hold", () => holdSession(deps, admitted)), callsAhead(config, admitted));
    const executing = inPhase("preparation", () => prepareTurn(deps, admitted)).then((prepared) =>
      inPhase("execution", async () => ({ prepared, ending: await executeTurn(deps, prepared, gate) })),
    );
    // heard once the hold is written; a hold that refuses or drops the delivery ends it unheard as the turn closes
    executing.catch(() => undefined);
    if (!(await gate.held)) return;
    const { prepared, ending } = await executing;
    last = await inPhase("finish", () => finishTurn(deps, prepared, ending));
  } catch (error) {
    last = await inPhase("finish", () => failTurn(deps, turn, error));
  } finally {
    await deps.active.close(turn, last);
  }
}
