import type { NatsConnection } from "nats";
import { trace } from "@opentelemetry/api";
import { AppError, type Logger } from "@agent-orchestrator/shared/runtime";
import { subjects, type RunStartRequest } from "@agent-orchestrator/shared/wire";
import { RunEventPublisher } from "../events/run-event-publisher.js";
import type { LastEvent, TurnState, TurnTerms } from "./turn-state.js";

/** The reason a closed turn's signal is aborted with: one error for every turn, so no stack trace is taken per turn (about 25 µs each). */
const turnEnded = new AppError("CANCELLED", "The turn has ended");

/** What opening a turn needs of the process: where its events go and its log. */
export interface TurnOpening {
  connection: NatsConnection;
  logger: Logger;
  subjectPrefix: string;
}

/**
 * The turns this process is running, by session, so a cancel broadcast can reach the one that runs it: each is
 * opened here (its state, events and deadline, reachable by a cancel from then on) and closed here, however it
 * ended. A session runs one user's turn at a time, but its subagents are turns of the same session, so a session
 * may have several here. Cancelling is idempotent: with a run id it aborts that run only, without one every
 * run of the session on this process (a user's Stop reaches the subagents wherever they run).
 */
export class ActiveTurns {
  private readonly bySession = new Map<string, Map<string, AbortController>>();

  /** Opens a turn: its log, its events, its deadline, and its place among the turns a cancel can reach. */
  open(deps: TurnOpening, request: RunStartRequest, attempt: number, terms: TurnTerms): TurnState {
    const { session_id: sessionId, run_id: runId, parent } = request;
    const log = deps.logger.child({ sessionId, runId, ...(parent ? { parentRunId: parent.run_id } : {}), attempt });
    // a subagent's events are its parent's to relay: on their own subject, and not kept in RUN_EVENTS
    const events = parent
      ? new RunEventPublisher(deps.connection, sessionId, runId, deps.subjectPrefix, subjects.runChildEvents(sessionId, runId), false)
      : new RunEventPublisher(deps.connection, sessionId, runId, deps.subjectPrefix);
    const controller = new AbortController();
    const deadline = setTimeout(() => controller.abort(terms.timeoutError()), terms.timeoutMs);
    this.add(sessionId, runId, controller);
    return {
      request,
      attempt,
      parent,
      delivery: `${runId}:${attempt}`,
      log,
      startedAt: performance.now(),
      span: trace.getActiveSpan(),
      endsAt: Date.now() + terms.timeoutMs,
      limits: terms.limits,
      events,
      controller,
      deadline,
      releaseSlot: terms.releaseSlot,
      added: [],
    };
  }

  /**
   * Closes a turn, however it ended: publishes its last event (none for a delivery that was dropped: the one that
   * runs or ran the turn says it), stops what of it still runs (the agent's start of a turn that was not admitted),
   * its deadline and its place among the turns a cancel reaches, then waits until its events are kept: the
   * work-queue message is acknowledged after this returns.
   */
  async close(turn: TurnState, last: LastEvent | undefined): Promise<void> {
    if (last) turn.events.finish(last);
    turn.controller.abort(turnEnded);
    clearTimeout(turn.deadline);
    this.remove(turn.request.session_id, turn.request.run_id);
    const lost = await turn.events.settled();
    if (lost) turn.log.error({ err: lost }, "the turn's events could not all be stored in RUN_EVENTS");
  }

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
