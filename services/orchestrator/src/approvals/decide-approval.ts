import { isDeepStrictEqual } from "node:util";
import { AppError, firstIssue, type AuditEntry } from "@agent-orchestrator/shared/runtime";
import { getOwn, toolCatalog, type ApprovalDecision, type ApprovalRecord, type ProjectRecord, type ToolArguments } from "@agent-orchestrator/shared/wire";
import { approvalAccess } from "./approval-access.js";
import type { ApprovalStore } from "./approval-store.js";
import { decisionAudit } from "./decision-audit.js";

/** A member's decision on one pending call of one chat. */
export interface DecisionInput {
  user: string;
  sessionId: string;
  approvalId: string;
  decision: ApprovalDecision;
  arguments?: ToolArguments | undefined;
  message?: string | undefined;
  /** where the decision came from, for the audit record */
  clientAddress?: string | undefined;
}

export interface DecisionDeps {
  approvals: ApprovalStore;
  /** publishes an audit record; never throws */
  audit: (entry: AuditEntry) => void;
  now?: () => Date;
}

/**
 * Records a member's decision (docs/approvals.md "Deciding"), for a caller who may see the chat (the caller checked;
 * `project` is the chat's): APPROVAL_NOT_FOUND for an id that is not this chat's, PROJECT_FORBIDDEN for a viewer or
 * an editor who may not decide it (recorded as refused), VALIDATION_ERROR for edited arguments the tool would refuse,
 * APPROVAL_DECIDED once it is no longer pending (decided, expired or cancelled). The record moves from pending by
 * compare-and-set, so of two decisions, or one sent twice, exactly one is recorded and the call runs once.
 */
export async function decideApproval(deps: DecisionDeps, project: ProjectRecord, input: DecisionInput): Promise<ApprovalRecord> {
  const now = deps.now?.() ?? new Date();
  const stored = await deps.approvals.get(input.sessionId, input.approvalId);
  if (!stored || stored.record.project_id !== project.id) throw new AppError("APPROVAL_NOT_FOUND", "No such pending tool call in this chat");
  const { record } = stored;
  if (approvalAccess(record, project, input.user) !== "decide") {
    deps.audit({ ...decisionAudit(record, input.user, "refused", `${input.decision} refused: may not decide`), client_address: input.clientAddress });
    throw new AppError(
      "PROJECT_FORBIDDEN",
      record.deciders === "editors"
        ? "Only the project's owner and editors can decide this tool call"
        : "Only the member whose turn it was and the project's owner can decide this tool call",
    );
  }
  if (input.arguments !== undefined) checkArguments(record.tool, input.arguments);
  if (record.status === "pending" && Date.parse(record.expires_at) <= now.getTime()) {
    throw new AppError("APPROVAL_DECIDED", `This tool call waited until ${record.expires_at} and expired`);
  }
  const outcome = input.decision;
  const result = await deps.approvals.transition(input.sessionId, input.approvalId, ["pending"], (current) => ({
    ...current,
    status: outcome === "approve" ? "approved" : "rejected",
    decided: {
      outcome,
      by: input.user,
      at: now.toISOString(),
      // arguments the same as the model's are no edit
      ...(input.arguments === undefined || outcome !== "approve" || isDeepStrictEqual(input.arguments, current.arguments) ? {} : { arguments: input.arguments }),
      ...(input.message === undefined ? {} : { message: input.message }),
    },
  }));
  if (!result.changed) throw new AppError("APPROVAL_DECIDED", alreadyEnded(result.record));
  const edited = result.record.decided?.arguments !== undefined;
  deps.audit({ ...decisionAudit(result.record, input.user, "ok", `${outcome} ${record.tool}, call ${record.call_id}${edited ? ", arguments edited" : ""}`), client_address: input.clientAddress });
  return result.record;
}

/** Edited arguments must be what the tool itself would take (its own schema, as for the model's calls). */
function checkArguments(tool: string, args: ToolArguments): void {
  const schema = getOwn(toolCatalog, tool)?.args;
  if (!schema) return;
  const parsed = schema.safeParse(args);
  if (!parsed.success) throw new AppError("VALIDATION_ERROR", `Invalid arguments for ${tool}: ${firstIssue(parsed.error, "arguments")}`);
}

function alreadyEnded(record: ApprovalRecord): string {
  const { decided } = record;
  switch (decided?.outcome) {
    case "approve":
      return `This tool call was already approved${decided.by ? ` by ${decided.by}` : ""}`;
    case "reject":
      return `This tool call was already rejected${decided.by ? ` by ${decided.by}` : ""}`;
    case "expire":
      return "This tool call waited too long and expired";
    case "cancel":
      return "This tool call's chat was cancelled";
    default:
      return "This tool call is no longer pending";
  }
}
