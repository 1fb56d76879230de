import { firstIssue, parseJson } from "@agent-orchestrator/shared/runtime";
import { getOwn, toolCatalog, type ToolName, type ToolResult } from "@agent-orchestrator/shared/wire";
import type { StreamedToolCall } from "./tool-call-accumulator.js";

/** A model's tool call as checked before anything runs: valid (its tool and its parsed arguments), or the error the model reads. */
export type PreparedCall =
  | { valid: true; id: string; name: ToolName; args: Record<string, unknown> }
  | { valid: false; id: string; name: string; args: Record<string, unknown>; error: ToolResult };

/**
 * Checks each call before anything runs: within the per-answer cap, an offered tool, JSON arguments, schema.
 * Ids are already unique (ToolCallIds).
 */
export function prepareToolCalls(calls: readonly StreamedToolCall[], maxCalls: number, offered: readonly ToolName[]): PreparedCall[] {
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
    return { valid: true, id, name: call.name as ToolName, args: checked.data as Record<string, unknown> };
  });
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
