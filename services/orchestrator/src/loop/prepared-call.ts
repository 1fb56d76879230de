import { firstIssue, parseJson } from "@agent-orchestrator/shared/runtime";
import { getOwn, toolCatalog, type ToolName, type ToolResult } from "@agent-orchestrator/shared/wire";
import { approvalVerdict, type ApprovalVerdict } from "../approvals/approval-verdict.js";
import type { StreamedToolCall } from "./tool-call-accumulator.js";
import type { ToolGate } from "./tool-gate.js";

/**
 * A model's tool call as checked before anything runs: valid (its tool, its parsed arguments, and what the turn's
 * approval policies say of it), or the error the model reads.
 */
export type PreparedCall =
  | { valid: true; id: string; name: ToolName; args: Record<string, unknown>; verdict: ApprovalVerdict }
  | { valid: false; id: string; name: string; args: Record<string, unknown>; error: ToolResult };

/**
 * Checks each call before anything runs: within the per-answer cap, an offered tool, JSON arguments, schema; then
 * asks the gate's policies of each valid one (docs/approvals.md; without a gate every call is allowed). Ids are
 * already unique (ToolCallIds).
 */
export function prepareToolCalls(calls: readonly StreamedToolCall[], maxCalls: number, offered: readonly ToolName[], gate?: ToolGate): PreparedCall[] {
  const availableTools = offered.join(", ");
  return calls.map((call, index): PreparedCall => {
    const { id } = call;
    const invalid = (message: string, args: Record<string, unknown> = {}, code: "INVALID_TOOL_CALL" | "UNKNOWN_TOOL" = "INVALID_TOOL_CALL"): PreparedCall => ({
      valid: false,
      id,
      name: call.name,
      args,
      error: { success: false, error: { code, message } },
    });
    if (index >= maxCalls) return invalid(`Too many tool calls in one answer (at most ${maxCalls}); this call was not run. Make it again after these results.`);

    const entry = getOwn(toolCatalog as Record<string, (typeof toolCatalog)[ToolName]>, call.name);
    if (!entry || !offered.includes(call.name as ToolName)) return invalid(`Unknown tool "${call.name}". Available tools: ${availableTools}.`, {}, "UNKNOWN_TOOL");
    const parsed = parseJson(call.arguments || "{}");
    if (!parsed.ok) return invalid(`The arguments are not valid JSON (${parsed.error}). Send a JSON object.`);
    const checked = entry.args.safeParse(parsed.value);
    const shown = isRecord(parsed.value) ? parsed.value : {};
    if (!checked.success) return invalid(`Invalid arguments for ${call.name}: ${firstIssue(checked.error, "(arguments)")}`, shown);
    const args = checked.data as Record<string, unknown>;
    const verdict: ApprovalVerdict = gate ? approvalVerdict(gate.approvals, call.name, args, gate.cannotWait) : { policy: "allow", reason: "" };
    return { valid: true, id, name: call.name as ToolName, args, verdict };
  });
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
