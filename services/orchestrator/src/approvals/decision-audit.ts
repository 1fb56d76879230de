import { createHash } from "node:crypto";
import type { AuditEntry } from "@agent-orchestrator/shared/runtime";
import type { ApprovalRecord } from "@agent-orchestrator/shared/wire";
import { previewArguments } from "../events/bounded-event.js";
import { argumentsEdited } from "./approval-view.js";

/** Each argument set in an audit record is previewed within this (the audit log keeps many records). */
const auditArgumentsBytes = 16 * 1024;

const sha256Of = (value: unknown): string => createHash("sha256").update(JSON.stringify(value)).digest("hex");

/**
 * The audit record of a decision (docs/audit.md `approval_decided`): who decided what and when, on which chat and
 * call, and the arguments as the model sent them and as a member changed them, each previewed with the SHA-256 of
 * the whole, so the record names exactly what ran (docs/security.md case 96). A refused decision is recorded too.
 */
export function decisionAudit(record: ApprovalRecord, actor: string, outcome: AuditEntry["outcome"], detail: string): AuditEntry {
  const original = previewArguments(record.arguments, auditArgumentsBytes);
  const edited = argumentsEdited(record) && record.decided?.arguments ? record.decided.arguments : undefined;
  const editedShown = edited ? previewArguments(edited, auditArgumentsBytes) : undefined;
  return {
    actor,
    action: "approval_decided",
    project_id: record.project_id,
    target: record.session_id,
    outcome,
    detail,
    call: {
      tool: record.tool,
      call_id: record.call_id,
      approval_id: record.approval_id,
      arguments: original.arguments,
      arguments_sha256: sha256Of(record.arguments),
      ...(edited && editedShown ? { edited_arguments: editedShown.arguments, edited_arguments_sha256: sha256Of(edited) } : {}),
      ...(original.truncated || editedShown?.truncated ? { truncated: true } : {}),
    },
  };
}
