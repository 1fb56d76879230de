import { AppError } from "@agent-orchestrator/shared/runtime";
import { subjects, type RunParent, type RunStartRequest } from "@agent-orchestrator/shared/wire";
import { loopLimits } from "../loop/loop-limits.js";
import { admitChildTurn } from "./turn-admission.js";
import type { TurnDeps } from "./turn-deps.js";
import { executeTurn } from "./turn-execution.js";
import { failTurn, finishTurn } from "./turn-finish.js";
import { prepareChildTurn } from "./turn-preparation.js";
import { inPhase } from "./turn-phase.js";
import { announceTurn } from "./turn-session.js";
import type { LastEvent } from "./turn-state.js";

export type ChildRunRequest = RunStartRequest & { parent: RunParent };

/** Whether the request came from where only orchestrators may queue a subagent (NATS permissions). */
export const isChildRequestSubject = (request: ChildRunRequest, subject: string, subjectPrefix: string): boolean =>
  request.parent.session_id === request.session_id && subject === subjectPrefix + subjects.runChildRequest(request.session_id, request.parent.run_id);

/**
 * A subagent's turn, queued by the orchestrator running its parent, as the same phases as a user's turn
 * (turn-runner.ts) but for the session: the agent's persona, the task as the user message, the same chat and
 * project (tool context), its own loop and limits, and one final `done` or `error` on its own event subject,
 * which the parent relays and turns into the tool result.
 *
 * It holds no session: the parent holds the session's "one running turn" mark for as long as its children run,
 * its owner check already passed, and the child's conversation belongs to no chat (only its answer does, as the
 * parent's tool result). So a child neither writes the sessions bucket nor collides with its parent's
 * compare-and-set. A redelivered child (its orchestrator died) simply runs again; the parent keeps waiting within
 * the same deadline. It reads the session's head once before it starts and before each model call, to stop when
 * the user's turn it works for has ended (subagents/family-guard.ts).
 */
export async function runChildTurn(deps: TurnDeps, request: ChildRunRequest, attempt: number): Promise<void> {
  const { config } = deps;
  const timeoutMs = Math.max(0, Math.min(config.SUBAGENT_TIMEOUT_MS, request.expires_at - Date.now()));
  const turn = deps.active.open(deps, request, attempt, {
    timeoutMs,
    // the parent waits as long and answers SERVICE_TIMEOUT; whichever deadline fires first, the code is the same
    timeoutError: () => new AppError("SERVICE_TIMEOUT", `The subagent did not finish within ${timeoutMs} ms and was stopped.`),
    limits: { ...loopLimits(config), maxIterations: config.SUBAGENT_MAX_ITERATIONS },
  });
  let last: LastEvent | undefined;
  try {
    const admitted = await inPhase("admission", () => admitChildTurn(deps, turn, request.parent));
    announceTurn(admitted);
    const prepared = await inPhase("preparation", () => prepareChildTurn(deps, admitted));
    const ending = await inPhase("execution", () => executeTurn(deps, prepared));
    last = await inPhase("finish", () => finishTurn(deps, prepared, ending));
  } catch (error) {
    last = await inPhase("finish", () => failTurn(deps, turn, error));
  } finally {
    await deps.active.close(turn, last);
  }
}
