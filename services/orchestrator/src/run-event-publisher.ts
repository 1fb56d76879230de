import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { ErrorCode as NatsErrorCode, type MsgHdrs, type NatsConnection } from "nats";
import { encodeJson, subjects, traceHeadersOption, type RunEvent, type RunEventBody } from "@agent-orchestrator/shared";
import { boundEvent } from "./bounded-event.js";
import { natsMessageBudget } from "./nats-message-budget.js";

/** Each attempt to store an event waits this long for the stream's acknowledgement. */
const attemptTimeoutMs = 2_000;
/** Longer than a RUN_EVENTS leader election on nats-server 2.9 (4–9 s). */
const storeBudgetMs = 30_000;
const retryPauseMs = 250;

/**
 * Publishes the events of one turn on `agent.run.events.<session>.<run>` (a subagent's on its own subject,
 * for its parent to relay), numbering them from 0. After `finish()` nothing more is published for the
 * turn, so a late tool result can never follow its `done`. Every event is bounded to fit the server's
 * `max_payload` (previewed tool arguments, long deltas split, a huge answer cut), so nothing the model
 * produces can make a publish fail.
 *
 * A turn's events are JetStream publishes, one after another, each repeated until `RUN_EVENTS` has
 * stored it (one message id per event, so a repeat is stored once): a plain publish made while the stream
 * elects a new leader would be lost to every client that re-attaches. Live subscribers get each event on
 * its first attempt; a repeat can reach them twice, and the gateway drops a `seq` it has seen.
 * A subagent's events are not kept in a stream, so they stay plain publishes.
 */
export class RunEventPublisher {
  private seq = 0;
  private closed = false;
  private stored: Promise<void> = Promise.resolve();
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

  emit(body: RunEventBody): void {
    if (this.closed) return;
    const event = { ...body, session_id: this.sessionId, run_id: this.runId, seq: this.seq } as RunEvent;
    for (const bounded of boundEvent(event, natsMessageBudget(this.connection))) this.send({ ...bounded, seq: this.seq++ } as RunEvent);
  }

  private send(event: RunEvent): void {
    const subject = this.subjectPrefix + this.subject;
    const data = encodeJson(event);
    const { headers } = traceHeadersOption();
    if (!this.kept) {
      this.connection.publish(subject, data, headers ? { headers } : undefined);
      return;
    }
    const msgID = `${this.runId}:${this.idPrefix}:${event.seq}`;
    this.stored = this.stored.then(() =>
      this.lost === undefined ? storeEvent(this.connection, subject, data, msgID, headers).catch((error: unknown) => void (this.lost = error)) : undefined,
    );
  }

  /** Publishes the final event (done or error) and stops the publisher. */
  finish(body: Extract<RunEventBody, { type: "done" | "error" }>): void {
    this.emit(body);
    this.closed = true;
  }

  /** Resolves once every event so far is stored, with the error that stopped storing them, if one did. */
  async settled(): Promise<unknown> {
    await this.stored;
    return this.lost;
  }
}

async function storeEvent(connection: NatsConnection, subject: string, data: Uint8Array, msgID: string, headers: MsgHdrs | undefined): Promise<void> {
  const deadline = Date.now() + storeBudgetMs;
  for (;;) {
    try {
      await connection.jetstream().publish(subject, data, { msgID, timeout: attemptTimeoutMs, ...(headers ? { headers } : {}) });
      return;
    } catch (error) {
      const code = (error as { code?: string }).code;
      const leaderless = code === NatsErrorCode.Timeout || code === NatsErrorCode.NoResponders || code === "503";
      if (!leaderless || Date.now() + retryPauseMs > deadline) throw error;
      await sleep(retryPauseMs);
    }
  }
}
