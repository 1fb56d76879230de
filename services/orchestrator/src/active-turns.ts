import { AppError } from "@agent-orchestrator/shared";

/**
 * The turns this process is running, by session, so a cancel broadcast can reach the one that runs it.
 * Cancelling is idempotent and only ever aborts the named (or current) run.
 */
export class ActiveTurns {
  private readonly bySession = new Map<string, { runId: string; controller: AbortController }>();

  add(sessionId: string, runId: string, controller: AbortController): void {
    this.bySession.set(sessionId, { runId, controller });
  }

  remove(sessionId: string, runId: string): void {
    if (this.bySession.get(sessionId)?.runId === runId) this.bySession.delete(sessionId);
  }

  /** Aborts the session's running turn; returns whether this process was running it. */
  cancel(sessionId: string, runId?: string): boolean {
    const turn = this.bySession.get(sessionId);
    if (!turn || (runId !== undefined && turn.runId !== runId)) return false;
    turn.controller.abort(new AppError("CANCELLED", "The turn was cancelled"));
    return true;
  }
}
