import type { NatsConnection } from "nats";
import { encodeJson, subjects, traceHeadersOption, type RunEvent, type RunEventBody } from "@agent-orchestrator/shared";
import { boundEvent } from "./bounded-event.js";
import { natsMessageBudget } from "./nats-message-budget.js";

/**
 * Publishes the events of one turn on `agent.run.events.<session>.<run>` (a subagent's on its own subject,
 * for its parent to relay), numbering them from 0. After `finish()` nothing more is published for the
 * turn, so a late tool result can never follow its `done`. Every event is bounded to fit the server's
 * `max_payload` (previewed tool arguments, long deltas split, a huge answer cut), so nothing the model
 * produces can make a publish fail.
 */
export class RunEventPublisher {
  private seq = 0;
  private closed = false;

  constructor(
    private readonly connection: NatsConnection,
    private readonly sessionId: string,
    private readonly runId: string,
    private readonly subjectPrefix = "",
    private readonly subject = subjects.runEvents(sessionId, runId),
  ) {}

  emit(body: RunEventBody): void {
    if (this.closed) return;
    const event = { ...body, session_id: this.sessionId, run_id: this.runId, seq: this.seq } as RunEvent;
    for (const bounded of boundEvent(event, natsMessageBudget(this.connection))) {
      this.connection.publish(this.subjectPrefix + this.subject, encodeJson({ ...bounded, seq: this.seq++ }), traceHeadersOption());
    }
  }

  /** Publishes the final event (done or error) and stops the publisher. */
  finish(body: Extract<RunEventBody, { type: "done" | "error" }>): void {
    this.emit(body);
    this.closed = true;
  }
}
