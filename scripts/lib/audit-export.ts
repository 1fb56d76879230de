import type { NatsConnection } from "nats";
import { auditActorToken, createLogger } from "@agent-orchestrator/shared/runtime";
import { jetStreamNames, subjects, type AuditQuery } from "@agent-orchestrator/shared/wire";
import { readAuditPage } from "@agent-orchestrator/gateway";

export interface AuditExportOptions {
  since?: string | undefined;
  until?: string | undefined;
  /** one project's records (its id), or `_` for those outside any project (sign-ins, tokens) */
  project?: string | undefined;
  actor?: string | undefined;
  /** the subject prefix of a test system's streams; empty in production */
  subjectPrefix?: string;
}

/** Records read per page; the stream is read page after page, oldest first, so any size is exported in bounded memory. */
const pageSize = 500;

/**
 * Writes every audit record that matches, oldest first, one JSON object per line (`seq` is the record's stream
 * sequence), as `npm run audit:export` does (docs/audit.md "Exporting"). Returns how many were written.
 */
export async function exportAudit(connection: NatsConnection, options: AuditExportOptions, writeLine: (line: string) => void | Promise<void>): Promise<number> {
  const prefix = options.subjectPrefix ?? "";
  const filter = prefix + subjects.audit(options.project ?? "*", options.actor === undefined ? "*" : auditActorToken(options.actor), "*");
  const stream = jetStreamNames(prefix).auditStream;
  const logger = createLogger("audit-export", "warn");
  let cursor: string | undefined;
  let written = 0;
  do {
    const query: AuditQuery = { limit: pageSize, ...(cursor ? { cursor } : options.since ? { since: options.since } : {}), ...(options.until ? { until: options.until } : {}) };
    const page = await readAuditPage({ connection, logger }, stream, filter, query);
    for (const record of page.records) await writeLine(JSON.stringify(record));
    written += page.records.length;
    cursor = page.next_cursor;
  } while (cursor);
  return written;
}
