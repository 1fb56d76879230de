import type { RunStartRequest } from "@agent-orchestrator/shared";
import { runTurn, type TurnRunnerDeps } from "../turn-runner.js";
import { isChildRequestSubject, runChildTurn } from "./child-turn.js";

/**
 * Runs a request from the work queue: a user's turn, or a subagent's. A request that claims a parent is
 * trusted only from the subagent subject, which NATS lets only orchestrators publish to (docs/security.md case 65): a forged one would skip the session and owner checks.
 */
export async function runQueuedTurn(deps: TurnRunnerDeps, request: RunStartRequest, attempt: number, subject: string): Promise<void> {
  const { parent } = request;
  if (!parent) return runTurn(deps, request, attempt);
  const child = { ...request, parent };
  if (!isChildRequestSubject(child, subject, deps.subjectPrefix)) {
    deps.logger.error({ sessionId: request.session_id, runId: request.run_id, subject }, "a subagent request outside the subagent subject was dropped");
    return;
  }
  return runChildTurn(deps, child, attempt);
}
