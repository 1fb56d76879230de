import { SpanStatusCode, trace } from "@opentelemetry/api";
import type { ErrorCode, RunnerToolName, ToolResult } from "@agent-orchestrator/shared/wire";
import { toolRunnerMetrics } from "./tool-runner-metrics.js";

/** The verdicts that mean a call tried to reach what it may not: counted as security denials. */
const denialCodes: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "ACCESS_DENIED",
  "PATH_OUTSIDE_ROOT",
  "SYMLINK_ESCAPE",
  "PATH_CHANGED",
  "PROTECTED_PATH",
  "INVALID_PATH",
  "SCRIPT_REJECTED",
]);

/**
 * Counts a tool call's outcome once it is answered and puts it on the endpoint's span: the outcome, the
 * error code, the virtual path and the size the result reports. Never arguments or content. (The
 * dispatcher logs each denial at WARN with the session id.)
 */
export async function observeToolCall(tool: RunnerToolName, pending: Promise<ToolResult>): Promise<ToolResult> {
  const span = trace.getActiveSpan();
  const result = await pending;
  const outcome = result.success ? "ok" : result.error.code;
  toolRunnerMetrics.toolCalls.inc({ tool, outcome });
  if (!result.success && denialCodes.has(result.error.code)) toolRunnerMetrics.denials.inc({ code: result.error.code });
  const size = result.success && typeof result["size"] === "number" ? result["size"] : undefined;
  if (size !== undefined) toolRunnerMetrics.bytes.inc({ tool }, size);
  if (span) {
    span.setAttributes({ "gen_ai.tool.name": tool, "ao.tool.outcome": outcome });
    if (size !== undefined) span.setAttribute("ao.tool.bytes", size);
    if (result.success && typeof result["path"] === "string") span.setAttribute("ao.tool.path", result["path"]);
    if (!result.success) {
      span.setAttribute("error.type", result.error.code);
      span.setStatus({ code: SpanStatusCode.ERROR, message: result.error.code });
    }
  }
  return result;
}
