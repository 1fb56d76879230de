import type { MsgRequest, NatsConnection } from "nats";
import { decodeJson, leaderElectionWaitMs, retryNats, type Logger } from "@agent-orchestrator/shared/runtime";
import { RunEvent } from "@agent-orchestrator/shared/wire";

/** JetStream's answer to a message get past the last one on the subject: "no message found". */
const noMessageFound = 10037;

/**
 * One turn's events as `RUN_EVENTS` holds them, read on demand by a live relay that missed some: the core
 * subscription gets nothing while the gateway reconnects to another server, and the orchestrator sends an event
 * again only when the stream did not store it. Each read gives the events stored since the previous read, in the
 * stream's order, by message gets (`next_by_subj`): no consumer to create, so nothing waits on a server that just
 * died (docs/operations.md "Known limits on nats-server 2.9"). Only the turn's latest attempt is given: a takeover's
 * events number from 0 again after its `session` event.
 */
export class StoredRunEvents {
  /** the stream sequence the next read starts from */
  private cursor = 1;
  /** the attempt the events read last belong to */
  private attempt = 1;

  constructor(
    private readonly connection: NatsConnection,
    private readonly stream: string,
    private readonly subject: string,
    private readonly logger: Logger,
  ) {}

  /** The turn's events stored since the last read; none when the stream cannot be read now (the live relay goes on). */
  async read(): Promise<RunEvent[]> {
    const events: RunEvent[] = [];
    try {
      // without the account check, which is a request of its own that a dying server leaves unanswered
      const manager = await this.connection.jetstreamManager({ checkAPI: false });
      for (;;) {
        // nats.js 2.29 types `next_by_subj` for direct gets only; the stream's message get takes it too (nats-server 2.9)
        const query = { seq: this.cursor, next_by_subj: this.subject } as unknown as MsgRequest;
        const stored = await retryNats(() => manager.streams.getMessage(this.stream, query), {
          retryOn: ["no-responders", "no-leader", "timeout"],
          budgetMs: leaderElectionWaitMs,
        }).catch((error: unknown) => {
          if ((error as { api_error?: { err_code?: number } }).api_error?.err_code === noMessageFound) return undefined;
          throw error;
        });
        if (!stored) return events;
        this.cursor = stored.seq + 1;
        const event = decodeJson(stored.data, RunEvent);
        if (event.type === "session" && event.attempt > this.attempt) {
          this.attempt = event.attempt;
          events.length = 0;
        }
        events.push(event);
      }
    } catch (error) {
      this.logger.warn({ err: error, subject: this.subject }, "could not read the turn's stored events; the live relay goes on");
      return events;
    }
  }
}
