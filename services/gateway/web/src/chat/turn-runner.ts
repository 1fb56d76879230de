import type { RunEvent } from "@agent-orchestrator/shared/wire";
import type { ApiClient } from "../api/api-client.js";
import { toApiError, type ApiError } from "../api/api-error.js";
import type { AssistantMessage } from "./assistant-message.js";
import { playTurn, type ApprovalDecidedEvent, type ApprovalRequiredEvent } from "./chat-turn.js";
import type { Composer } from "./composer.js";
import { pendingMessage } from "./pending-message.js";
import { showToast } from "../ui/toasts.js";

/** What the page does around a turn besides drawing it. */
export interface TurnHooks {
  /** the turn's `session` event came: a new chat learns its session id here */
  sessionStarted(sessionId: string): void;
  fileSaved(): void;
  /** the turn paused at a call that waits for a decision: its card goes into `message` */
  approvalRequired(event: ApprovalRequiredEvent, message: AssistantMessage): void;
  approvalDecided(event: ApprovalDecidedEvent): void;
  /** the turn is over for this page: finished, failed, refused, paused, or left */
  ended(): void;
}

/** A turn this page shows as it streams; aborting stops the relay, not the turn (Stop cancels it). */
interface LiveTurn {
  controller: AbortController;
  sessionId?: string;
  /** what the user sent, remembered for a reload until the turn ends (undefined when following a turn) */
  sent?: string;
  /** its `session` event has come: from then on a cancel reaches this turn, not the one before it */
  started: boolean;
  stopRequested: boolean;
}

/** Runs the one turn the page shows at a time, with the composer's Send/Stop state to match. */
export class TurnRunner {
  private turn: LiveTurn | undefined;
  /** settles when the turn shown last is over for this page */
  private settled: Promise<void> = Promise.resolve();

  constructor(
    private readonly api: ApiClient,
    private readonly composer: Composer,
  ) {}

  get running(): boolean {
    return this.turn !== undefined;
  }

  /** Resolves once no turn is shown: a turn that resumed waits for the one that paused to be closed here. */
  whenIdle(): Promise<void> {
    return this.settled;
  }

  /**
   * Shows a turn's events in `message` as they come; resolves with the error when the gateway refused
   * the turn before it started. `sessionId` is the session when it is known beforehand.
   */
  async follow(
    message: AssistantMessage,
    open: (signal: AbortSignal) => Promise<AsyncGenerator<RunEvent>>,
    hooks: TurnHooks,
    known: { sessionId?: string; sent?: string } = {},
  ): Promise<ApiError | undefined> {
    const turn: LiveTurn = { controller: new AbortController(), started: false, stopRequested: false, ...known };
    this.turn = turn;
    let over = (): void => undefined;
    this.settled = new Promise((resolve) => (over = resolve));
    this.composer.setBusy(true);
    let refusal: ApiError | undefined;
    let ended = false;
    try {
      const events = await open(turn.controller.signal);
      const observer = {
        session: (sessionId: string) => this.started(turn, sessionId, hooks),
        fileSaved: () => hooks.fileSaved(),
        approvalRequired: (event: ApprovalRequiredEvent, shown: AssistantMessage) => hooks.approvalRequired(event, shown),
        approvalDecided: (event: ApprovalDecidedEvent) => hooks.approvalDecided(event),
      };
      ended = await playTurn(events, message, observer, turn.controller.signal);
    } catch (error) {
      refusal = toApiError(error);
    } finally {
      // a turn the page merely left, or whose stream broke off (a reload), goes on: its message stays remembered for
      // when the session is reopened, which forgets it once the chat no longer runs
      if (turn.sessionId && ended) pendingMessage.clear(turn.sessionId);
      if (this.turn === turn) {
        this.turn = undefined;
        this.composer.setBusy(false);
      }
      hooks.ended();
      over();
    }
    return refusal;
  }

  /** The Stop button: cancels the turn on the server, at once or as soon as it has started. */
  stop(): void {
    const turn = this.turn;
    if (!turn) return;
    this.composer.markStopping();
    turn.stopRequested = true;
    if (turn.started && turn.sessionId) void this.cancel(turn, turn.sessionId);
  }

  /** Stops showing the turn when the user navigates away; the turn itself goes on. */
  leave(): void {
    this.turn?.controller.abort();
    this.turn = undefined;
  }

  private started(turn: LiveTurn, sessionId: string, hooks: TurnHooks): void {
    turn.sessionId = sessionId;
    turn.started = true;
    if (turn.stopRequested) void this.cancel(turn, sessionId);
    if (turn.sent) pendingMessage.set(sessionId, turn.sent);
    hooks.sessionStarted(sessionId);
  }

  /** The turn then ends with a CANCELLED error event, which closes it here as it does everywhere else. */
  private async cancel(turn: LiveTurn, sessionId: string): Promise<void> {
    try {
      if (!(await this.api.cancel(sessionId))) showToast("The answer had already finished.");
    } catch (error) {
      const failure = toApiError(error);
      showToast(`Could not stop the answer (${failure.code}): ${failure.message}`, "error");
      turn.stopRequested = false;
      if (this.turn === turn) this.composer.setBusy(true);
    }
  }
}
