import { AppError } from "@agent-orchestrator/shared/runtime";
import type { RunEventBody } from "@agent-orchestrator/shared/wire";
import type { ModelCaller, ModelRequest, ModelStreamPart } from "../loop/model-caller.js";
import type { AdmittedTurn, HeldTurn } from "./turn-state.js";

/**
 * A user's turn is prepared and executed while its session's hold is written (turn-session.ts): its model call
 * does not depend on the hold, whose conversation is the one the admission read (none for a new chat). Nothing of
 * the turn is seen or done before the hold is written: its events wait here, behind the `session` event the hold
 * announces, and so does its model's answer, so no tool runs; only the model's request goes out meanwhile, when the
 * hold is expected to mark the session (turn-session.ts `callsAhead`: no budget to ask first, no turn running). A hold
 * that refuses the turn or drops this delivery ends the call unheard, as the turn closes (ARCHITECTURE.md "One chat
 * turn").
 */
export class HoldGate {
  /** the turn's session once held; undefined when this delivery is dropped */
  readonly held: Promise<HeldTurn | undefined>;
  private waiting: RunEventBody[] | undefined = [];
  private readonly opened: Promise<void>;

  /**
   * `ahead`: the model's request may go out before the hold is written (turn-session.ts `callsAhead`); otherwise a
   * call waits for the hold before it is made.
   */
  constructor(
    private readonly turn: AdmittedTurn,
    holding: Promise<HeldTurn | undefined>,
    private readonly ahead: boolean,
  ) {
    this.held = holding;
    const expected = turn.place.stored?.record.messages.length ?? 0;
    this.opened = holding.then((held) => {
      if (!held) throw new AppError("CANCELLED", "This delivery of the turn was dropped");
      // the hold keeps the chat the admission read; should it ever hold another, the turn prepared from it must not go on
      if (held.session.record.messages.length !== expected) throw new AppError("SESSION_BUSY", "The chat changed as this turn started; send the message again");
      const waiting = this.waiting ?? [];
      this.waiting = undefined;
      for (const event of waiting) turn.events.emit(event);
    });
    this.opened.catch(() => undefined);
  }

  /** Publishes an event of the turn, or keeps it until the hold is written. */
  readonly emit = (event: RunEventBody): void => {
    if (this.waiting) this.waiting.push(event);
    else this.turn.events.emit(event);
  };

  /** The turn's model behind the gate: a call made before the hold is written yields nothing until it is. */
  model(caller: ModelCaller): ModelCaller {
    return { stream: (request) => (this.waiting === undefined ? caller.stream(request) : this.gated(caller, request)) };
  }

  private async *gated(caller: ModelCaller, request: ModelRequest): AsyncGenerator<ModelStreamPart> {
    if (!this.ahead) {
      await this.opened;
      return yield* caller.stream(request);
    }
    const parts = caller.stream(request)[Symbol.asyncIterator]();
    // the request leaves now; its answer is read once the hold is written
    const first = parts.next();
    first.catch(() => undefined);
    try {
      await this.opened;
    } catch (error) {
      // the call itself stops as the turn closes (its signal)
      void parts.return?.().catch(() => undefined);
      throw error;
    }
    try {
      for (let part = await first; !part.done; part = await parts.next()) yield part.value;
    } finally {
      // the loop stopped reading (an answer past its size): the call ends with it, as it would unwrapped
      await parts.return?.();
    }
  }
}
