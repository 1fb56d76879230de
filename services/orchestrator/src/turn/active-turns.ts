import { AppError } from "@agent-orchestrator/shared/runtime";

/**
 * The turns this process is running, by session, so a cancel broadcast can reach the one that runs it.
 * A session runs one user's turn at a time, but its subagents are turns of the same session, so a session
 * may have several here. Cancelling is idempotent: with a run id it aborts that run only, without one every
 * run of the session on this process (a user's Stop reaches the subagents wherever they run).
 */
export class ActiveTurns {
  private readonly bySession = new Map<string, Map<string, AbortController>>();

  add(sessionId: string, runId: string, controller: AbortController): void {
    const runs = this.bySession.get(sessionId) ?? new Map<string, AbortController>();
    runs.set(runId, controller);
    this.bySession.set(sessionId, runs);
  }

  remove(sessionId: string, runId: string): void {
    const runs = this.bySession.get(sessionId);
    runs?.delete(runId);
    if (runs?.size === 0) this.bySession.delete(sessionId);
  }

  /** Aborts the session's named run, or all its runs; returns whether this process was running any. */
  cancel(sessionId: string, runId?: string): boolean {
    const runs = this.bySession.get(sessionId);
    const targets = runId === undefined ? [...(runs?.values() ?? [])] : [runs?.get(runId)].filter((controller) => controller !== undefined);
    for (const controller of targets) controller.abort(new AppError("CANCELLED", "The turn was cancelled"));
    return targets.length > 0;
  }
}
