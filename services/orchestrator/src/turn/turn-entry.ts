import { AppError } from "@agent-orchestrator/shared/runtime";
import { isResumeSubject, type RunStartRequest } from "@agent-orchestrator/shared/wire";
import { errorEvent } from "./error-event.js";
import type { SlotRequest, UserTurnSlots } from "../fair-share/user-turn-slots.js";
import { RunEventPublisher } from "../events/run-event-publisher.js";
import type { TurnDeps } from "./turn-deps.js";
import { inPhase } from "./turn-phase.js";
import { runTurn } from "./turn-runner.js";
import { runResumedTurn } from "./turn-resume.js";
import { recordTurnEnd } from "./turn-telemetry.js";
import { isChildRequestSubject, runChildTurn } from "./child-turn.js";

export interface QueuedTurnDeps extends TurnDeps {
  /** each user's running turns across the replicas; without it a user's turns are not capped */
  userTurns?: UserTurnSlots;
}

/**
 * Runs a request from the work queue: a user's turn, or a subagent's. A request that claims a parent is
 * trusted only from the subagent subject, which NATS lets only orchestrators publish to (docs/security.md case 65): a forged one would skip the session and owner checks.
 */
export async function runQueuedTurn(deps: QueuedTurnDeps, request: RunStartRequest, attempt: number, subject: string): Promise<void> {
  const { parent, resume } = request;
  if (resume) {
    // trusted only from the resume subject, which NATS lets only orchestrators publish to (docs/security.md case 281)
    const { approvals } = deps;
    if (parent || !approvals || !isResumeSubject(subject, deps.subjectPrefix, request.session_id, resume.approval_id)) {
      deps.logger.error({ sessionId: request.session_id, runId: request.run_id, subject }, "a resume request outside the resume subject was dropped");
      return;
    }
    // a resumed turn was let in when it first ran: it always gets a slot, as a takeover does
    return runUserTurn(deps, request, attempt, (slotRelease) => runResumedTurn({ ...deps, approvals }, request, attempt, slotRelease), true);
  }
  if (!parent) return runUserTurn(deps, request, attempt);
  const child = { ...request, parent };
  if (!isChildRequestSubject(child, subject, deps.subjectPrefix)) {
    deps.logger.error({ sessionId: request.session_id, runId: request.run_id, subject }, "a subagent request outside the subagent subject was dropped");
    return;
  }
  return runChildTurn(deps, child, attempt);
}

/**
 * A user's turn runs only in one of their slots (USER_MAX_CONCURRENT_TURNS across every replica). A turn
 * past the cap is refused at once, before it touches the session, so it never waits in an orchestrator's
 * slot that another user's turn needs; its client hears why (USER_TURN_LIMIT, 429 with retry-after). A
 * subagent takes no slot of its own: it is part of its parent's turn, within the parent's own limits.
 */
async function runUserTurn(
  deps: QueuedTurnDeps,
  request: RunStartRequest,
  attempt: number,
  run: (releaseSlot?: () => Promise<void>) => Promise<void> = (releaseSlot) => runTurn(deps, request, attempt, releaseSlot),
  takeover = attempt > 1,
): Promise<void> {
  const { userTurns } = deps;
  if (!userTurns) return run();
  const startedAt = performance.now();
  let granted: SlotRequest;
  try {
    granted = await inPhase("entry", () => userTurns.acquire(request.owner, request.run_id, { takeover }));
  } catch (error) {
    deps.logger.error({ err: error, sessionId: request.session_id, runId: request.run_id }, "the user's running turns could not be counted");
    return refuse(deps, request, startedAt, new AppError("SERVICE_UNAVAILABLE", "The turn could not be started; try again shortly", { cause: error }));
  }
  if (!granted.ok) {
    const limit = deps.config.USER_MAX_CONCURRENT_TURNS;
    return refuse(
      deps,
      request,
      startedAt,
      new AppError(
        "USER_TURN_LIMIT",
        `You already have ${granted.running} turns running, the most one user may run at once (${limit}); this turn was not started. ` +
          "Send it again when one of them has ended.",
      ),
    );
  }
  const { slot } = granted;
  try {
    await run(() => slot.release());
  } finally {
    // given back before the final event, or here when the turn had none: a second delivery of a turn that still
    // runs elsewhere gives it back too, and the turn running it puts it back at its next renewal
    await slot.release();
  }
}

/** Answers a turn that did not start with its one `error` event; its session is left as it was. */
async function refuse(deps: QueuedTurnDeps, request: RunStartRequest, startedAt: number, error: AppError): Promise<void> {
  const log = deps.logger.child({ sessionId: request.session_id, runId: request.run_id });
  log.warn(recordTurnEnd({ agentId: "unknown", outcome: error.code, startedAt }), error.message);
  const events = new RunEventPublisher(deps.connection, request.session_id, request.run_id, deps.subjectPrefix);
  events.finish(errorEvent(error, undefined));
  const lost = await events.settled();
  if (lost) log.error({ err: lost }, "the turn's refusal could not be stored in RUN_EVENTS");
}
