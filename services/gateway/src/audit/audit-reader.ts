import { AckPolicy, DeliverPolicy, nanos, type ConsumerConfig, type NatsConnection } from "nats";
import { decodeJson, type Logger } from "@agent-orchestrator/shared/runtime";
import { AuditRecord, type AuditPage, type AuditQuery } from "@agent-orchestrator/shared/wire";

/** How long the page's consumer lives unused, if the gateway dies before deleting it. */
const consumerIdleMs = 30_000;

/**
 * One page of the `AUDIT` stream's records on `filterSubject` (a project's, maybe one actor's), oldest first:
 * from the cursor (a stream sequence) or from `since`, at most `limit`, none after `until`. It reads through an
 * ephemeral pull consumer made for the page, with one no-wait pull, so it never waits for records that will not
 * come; a last record that says more match after it gives the next page's cursor. The consumer is deleted after the page.
 */
export async function readAuditPage(
  options: { connection: NatsConnection; logger: Logger },
  stream: string,
  filterSubject: string,
  query: AuditQuery,
): Promise<AuditPage> {
  const manager = await options.connection.jetstreamManager();
  const start: Partial<ConsumerConfig> = query.cursor
    ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: Number(query.cursor) }
    : query.since
      ? { deliver_policy: DeliverPolicy.StartTime, opt_start_time: new Date(query.since).toISOString() }
      : { deliver_policy: DeliverPolicy.All };
  const info = await manager.consumers.add(stream, {
    ack_policy: AckPolicy.None,
    filter_subject: filterSubject,
    mem_storage: true,
    inactive_threshold: nanos(consumerIdleMs),
    ...start,
  });
  const records: AuditPage["records"] = [];
  let more = false;
  try {
    if (info.num_pending > 0) {
      const until = query.until === undefined ? Number.POSITIVE_INFINITY : Date.parse(query.until);
      // a no-wait pull ends with the last record there is; the newer Consumer.fetch has no no-wait and would wait
      // out its expiry whenever fewer records come than counted, as nats-server 2.9 over-counts a start-time consumer
      const messages = options.connection.jetstream().fetch(stream, info.name, { batch: Math.min(info.num_pending, query.limit), no_wait: true });
      for await (const message of messages) {
        more = message.info.pending > 0;
        let record: AuditRecord | undefined;
        try {
          record = decodeJson(message.data, AuditRecord);
        } catch (error) {
          options.logger.error({ err: error, seq: message.seq }, "invalid audit record skipped");
        }
        // records are stored in time order: the first one after `until` ends the page and the reading
        if (record && Date.parse(record.time) > until) {
          more = false;
          break;
        }
        if (record) records.push({ ...record, seq: message.seq });
        if (!more || records.length === query.limit) break;
      }
    }
  } finally {
    await manager.consumers.delete(stream, info.name).catch(() => undefined);
  }
  const last = records.at(-1);
  return { success: true, records, ...(more && last ? { next_cursor: String(last.seq + 1) } : {}) };
}
