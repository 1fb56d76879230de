/**
 * `npm run audit:export -- [--since ISO] [--until ISO] [--project id|_] [--actor user] > audit.jsonl`: every
 * audit record of the AUDIT stream that matches, oldest first, one JSON object per line (docs/audit.md
 * "Exporting"). It connects to NATS_URL as NATS_USER with NATS_PASSWORD: an operator's credentials (the `admin`
 * user of deploy/nats/nats-server.conf), since no service's user may read the whole stream.
 */
import { once } from "node:events";
import { parseArgs } from "node:util";
import { connect } from "nats";
import { AuditQuery } from "@agent-orchestrator/shared/wire";
import { exportAudit } from "./lib/audit-export.js";

const { values } = parseArgs({
  options: { since: { type: "string" }, until: { type: "string" }, project: { type: "string" }, actor: { type: "string" } },
  strict: true,
});
const times = AuditQuery.pick({ since: true, until: true }).safeParse({ since: values.since, until: values.until });
if (!times.success) {
  process.stderr.write("--since and --until take ISO times, e.g. 2026-01-31T00:00:00Z\n");
  process.exit(2);
}
const connection = await connect({
  servers: (process.env["NATS_URL"] ?? "nats://127.0.0.1:4222").split(","),
  ...(process.env["NATS_USER"] ? { user: process.env["NATS_USER"], pass: process.env["NATS_PASSWORD"] ?? "" } : {}),
  name: "audit-export",
});
try {
  const written = await exportAudit(connection, { ...times.data, project: values.project, actor: values.actor }, async (line) => {
    if (!process.stdout.write(`${line}\n`)) await once(process.stdout, "drain");
  });
  process.stderr.write(`${written} audit records exported\n`);
} finally {
  await connection.close();
}
