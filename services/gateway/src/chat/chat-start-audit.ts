import { AppError, type AuditEntry, type AuditPublisher } from "@agent-orchestrator/shared/runtime";
import { httpStatusByCode } from "../http/http-status.js";
import type { StartedRun } from "./run-client.js";

/**
 * Records a new chat's start (`chat_started`, docs/audit.md) once its turn is accepted or refused, whichever door
 * it came through (`/api/chat`, the WebSocket, `/v1`, MCP). The project is the one the orchestrator placed the
 * chat in (its `session` event), so a chat started in the default project is found under that project's id.
 */
export async function auditChatStart(
  { audit }: { audit: AuditPublisher },
  started: Promise<StartedRun>,
  entry: Pick<AuditEntry, "actor" | "target" | "project_id" | "client_address">,
): Promise<StartedRun> {
  try {
    const run = await started;
    const projectId = run.first.type === "session" ? run.first.project_id : undefined;
    void audit.record({ ...entry, action: "chat_started", outcome: "ok", project_id: projectId ?? entry.project_id });
    return run;
  } catch (error) {
    const refused = error instanceof AppError && httpStatusByCode[error.code] < 500;
    void audit.record({ ...entry, action: "chat_started", outcome: refused ? "refused" : "failed", detail: error instanceof AppError ? error.code : "INTERNAL_ERROR" });
    throw error;
  }
}
