import type { AuditPublisher } from "@agent-orchestrator/shared/runtime";
import type { FileAuthor, FileRevision, FileSpaceRef } from "@agent-orchestrator/shared/wire";

/**
 * The audit log's `file_written` (docs/audit.md): one record per file an agent's tool call wrote or removed in a
 * project (save_output, edit_file, a script's outputs), once the write has committed. The actor is the chat's
 * user, on whose turn the agent wrote; the detail names the agent, the chat and the call. Writes a user made
 * through the gateway (uploads, restores, deletions) are recorded by the gateway, and a chat's scratch space is
 * not a project's files, so neither is recorded here.
 */
export function auditAgentWrites(audit: Pick<AuditPublisher, "record">) {
  return (space: FileSpaceRef, written: readonly FileRevision[], author: FileAuthor): void => {
    if (space.kind !== "project" || author.agent_id === undefined) return;
    for (const revision of written) {
      void audit.record({
        actor: author.user,
        action: "file_written",
        project_id: space.id,
        target: revision.path,
        outcome: "ok",
        detail: [`agent ${author.agent_id}`, author.session_id && `chat ${author.session_id}`, author.tool_call_id && `call ${author.tool_call_id}`, revision.deleted ? "deleted" : `revision ${revision.revision}`]
          .filter(Boolean)
          .join(", "),
      });
    }
  };
}
