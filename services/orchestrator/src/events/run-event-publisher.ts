import { randomUUID } from "node:crypto";
import type { MsgHdrs, NatsConnection } from "nats";
import { jetStreamOf, retryNats, runEventStoreBudgetMs, traceHeadersOption, type NatsFailureKind } from "@agent-orchestrator/shared/runtime";
import { subjects, type RunEvent, type RunEventBody } from "@agent-orchestrator/shared/wire";
import { boundEvent } from "./bounded-event.js";
import { natsMessageBudget } from "../nats/nats-message-budget.js";

/** Each attempt to store an event waits this long for the stream's acknowledgement. */
const attemptTimeoutMs = 2_000;
/**
 * The failures after which events are sent again: the message id makes a repeat a no-op, so a timed-out
 * store (perhaps stored, perhaps not) is repeated as surely as one nobody took during an election.
 */
const storeRetriedOn: readonly NatsFailureKind[] = ["timeout", "no-responders", "no-leader"];

/** An event sent to `RUN_EVENTS` whose acknowledgement has not come yet. */
interface Unacknowledged {
  data: Uint8Array;
  msgID: string;
  headers: MsgHdrs | undefined;
  /** when it was first sent: the store budget counts from here */
  sentAt: number;
  /** undefined while held back for a re-send */
  ack: Promise<unknown> | undefined;
}

/**
 * Publishes the events of one turn on `agent.run.events.<session>.<run>` (a subagent's on its own subject,
 * for its parent to relay), numbering them from 0. After `finish()` nothing more is published for the
 * turn, so a late tool result can never follow its `done`. Every event is bounded to fit the server's
 * `max_payload` (previewed tool arguments, long deltas split, a huge answer cut), so nothing the model
 * produces can make a publish fail.
 *
 * A turn's events are JetStream publishes, each repeated until `RUN_EVENTS` has stored it (one message id
 * per event, so a repeat is stored once): a plain publish made while the stream elects a new leader would
 * be lost to every client that re-attaches. They are pipelined: each is sent at once, in order, and the
 * acknowledgements are awaited in order; when one fails, every event from it on is sent again in order
 * (those already stored are no-ops), and newer events wait for that re-send. So the stream can hold an
 * event after a later one only around a leader change; the gateway's replay puts them back in `seq` order.
 * Live subscribers get each event on its first send; a repeat can reach them twice, and the gateway drops a
 * `seq` it has seen. A subagent's events are not kept in a stream, so they stay plain publishes.
 */
export class RunEventPublisher {
  private seq = 0;
  private closed = false;
  /** an event went out in this turn of the event loop: deltas that follow it in the same turn are held */
  private busyTurn = false;
  private held: Extract<RunEventBody, { type: "delta" }> | undefined;
  private readonly unacknowledged: Unacknowledged[] = [];
  private retrying = false;
  private draining: Promise<void> = Promise.resolve();
  private drainRunning = false;
  private lost: unknown;
  /** message ids are this publisher's own: a takeover (attempt 2) numbers its events from 0 again */
  private readonly idPrefix = randomUUID();

  constructor(
    private readonly connection: NatsConnection,
    private readonly sessionId: string,
    private readonly runId: string,
    private readonly subjectPrefix = "",
    private readonly subject = subjects.runEvents(sessionId, runId),
    private readonly kept = true,
  ) {}

  /**
   * Publishes an event. A delta that comes in the same turn of the event loop as an event already sent (a
   * burst of chunks read at once) is held and joined with the deltas after it, and the whole goes out as one
   * at the end of that turn, or before the next event of another kind: the first delta is never delayed, and
   * the order stays the model's.
   */
  emit(body: RunEventBody): void {
    if (this.closed) return;
    if (body.type === "delta" && this.busyTurn) {
      if (this.held && this.held.parent_call_id === body.parent_call_id) this.held = { ...this.held, text: this.held.text + body.text };
      else {
        this.sendHeld();
        this.held = body;
      }
      return;
    }
    this.sendHeld();
    this.publish(body);
    if (!this.busyTurn) {
      this.busyTurn = true;
      setImmediate(() => {
        this.busyTurn = false;
        this.sendHeld();
      });
    }
  }

  private sendHeld(): void {
    const held = this.held;
    this.held = undefined;
    if (held && !this.closed) this.publish(held);
  }

  private publish(body: RunEventBody): void {
    const event = { ...body, session_id: this.sessionId, run_id: this.runId, seq: this.seq } as RunEvent;
    for (const bounded of boundEvent(event, natsMessageBudget(this.connection))) this.send(bounded.data, this.seq++);
  }

  private send(data: Uint8Array, seq: number): void {
    const { headers } = traceHeadersOption();
    if (!this.kept) {
      this.connection.publish(this.subjectPrefix + this.subject, data, headers ? { headers } : undefined);
      return;
    }
    if (this.lost !== undefined) return;
    const event: Unacknowledged = { data, msgID: `${this.runId}:${this.idPrefix}:${seq}`, headers, sentAt: Date.now(), ack: undefined };
    if (!this.retrying) event.ack = this.store(event);
    this.unacknowledged.push(event);
    if (!this.drainRunning) {
      this.drainRunning = true;
      this.draining = this.drain();
    }
  }

  private store(event: Unacknowledged): Promise<unknown> {
    const ack = jetStreamOf(this.connection).publish(this.subjectPrefix + this.subject, event.data, {
      msgID: event.msgID,
      timeout: attemptTimeoutMs,
      ...(event.headers ? { headers: event.headers } : {}),
    });
    // a failure is handled in order by drain(), or made moot by the re-send of an earlier event
    ack.catch(() => undefined);
    return ack;
  }

  /**
   * Awaits the acknowledgements in order; on a failure re-sends from the first unacknowledged event, holding
   * newer events back during the pause, for up to `runEventStoreBudgetMs` from that event's first send.
   */
  private async drain(): Promise<void> {
    try {
      for (let head = this.unacknowledged[0]; head; head = this.unacknowledged[0]) {
        const first = head;
        try {
          await retryNats(
            async (attempt) => {
              if (attempt > 1) {
                this.retrying = false;
                for (const event of this.unacknowledged) event.ack = this.store(event);
              }
              await first.ack;
            },
            { retryOn: storeRetriedOn, budgetMs: first.sentAt + runEventStoreBudgetMs - Date.now(), onRetry: () => (this.retrying = true) },
          );
          this.unacknowledged.shift();
        } catch (error) {
          this.lost = error;
          this.unacknowledged.length = 0;
          return;
        }
      }
    } finally {
      // in the same step as the loop's last look at the queue, so an event sent next starts a new drain
      this.drainRunning = false;
    }
  }

  /** Publishes the final event (done or error) and stops the publisher. */
  finish(body: Extract<RunEventBody, { type: "done" | "error" | "approval_required" }>): void {
    this.emit(body);
    this.closed = true;
  }

  /** Resolves once every event so far is stored, with the error that stopped storing them, if one did. */
  async settled(): Promise<unknown> {
    await this.draining;
    return this.lost;
  }
}
