import { randomUUID } from "node:crypto";
import type { NatsConnection } from "nats";
import type { Logger } from "pino";
import { AuditRecord, maxAuditDetailChars, type AuditAction, type AuditOutcome, type AuditToolCall } from "../../wire/audit-record.js";
import { subjects, subjectTokenPattern } from "../../wire/subjects.js";
import { encodeJson } from "../nats-request.js";
import { jetStreamOf } from "../nats/kept-jetstream.js";
import { retryNats } from "../nats/nats-retry.js";

/** What the acting code knows of an act; the publisher adds the id and the time. */
export interface AuditEntry {
  actor: string;
  action: AuditAction;
  project_id?: string | undefined;
  target?: string | undefined;
  client_address?: string | undefined;
  outcome: AuditOutcome;
  detail?: string | undefined;
  call?: AuditToolCall | undefined;
}

/** Each publish waits this long for the stream's acknowledgement. */
const publishAttemptTimeoutMs = 2_000;
/** All tries of one record end within this, so a record lost is logged soon after its act. */
const publishBudgetMs = 10_000;

/** The subject token of a project id or a user: an id as it is, a user in base64url (names may hold dots or spaces), `_` for none. */
export const auditProjectToken = (projectId: string | undefined): string =>
  projectId !== undefined && subjectTokenPattern.test(projectId) ? projectId : "_";
export const auditActorToken = (actor: string): string => (actor === "_" || actor === "" ? "_" : Buffer.from(actor, "utf8").toString("base64url"));

/**
 * Publishes audit records into the `AUDIT` stream (docs/audit.md). Recording never fails the act it records:
 * `record` never throws; a publish that is refused or times out (after a few tries with the record's id as the
 * message id, so a repeat is stored once) is logged with the record (never contents: a record holds none) and
 * counted through `onLost`. A record is therefore lost when JetStream cannot take it within ~10 s, or when the
 * process dies between the act and the acknowledgement.
 */
export class AuditPublisher {
  constructor(
    private readonly options: { connection: NatsConnection; subjectPrefix: string; logger: Logger; onLost?: () => void },
  ) {}

  record(entry: AuditEntry): Promise<void> {
    let record: AuditRecord;
    try {
      record = this.build(entry);
    } catch (error) {
      this.options.onLost?.();
      this.options.logger.error({ err: error, audit: { action: entry.action, actor: entry.actor } }, "audit record lost");
      return Promise.resolve();
    }
    const subject = this.options.subjectPrefix + subjects.audit(auditProjectToken(record.project_id), auditActorToken(record.actor), record.action);
    const publish = () => jetStreamOf(this.options.connection).publish(subject, encodeJson(record), { msgID: record.id, timeout: publishAttemptTimeoutMs });
    return retryNats(publish, { retryOn: ["timeout", "no-leader", "no-responders"], budgetMs: publishBudgetMs }).then(
      () => undefined,
      (error: unknown) => {
        this.options.onLost?.();
        this.options.logger.error({ err: error, audit: record }, "audit record lost");
      },
    );
  }

  /** The record of `entry`, its target and detail cut to their limits. */
  private build(entry: AuditEntry): AuditRecord {
    return AuditRecord.parse({
      ...Object.fromEntries(Object.entries(entry).filter(([, value]) => value !== undefined)),
      id: randomUUID(),
      time: new Date().toISOString(),
      ...(entry.detail === undefined ? {} : { detail: entry.detail.slice(0, maxAuditDetailChars) }),
      ...(entry.target === undefined ? {} : { target: entry.target.slice(0, 1024) }),
    });
  }
}
