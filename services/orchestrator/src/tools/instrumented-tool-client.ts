import { SpanStatusCode } from "@opentelemetry/api";
import { errorType, inSpan } from "@agent-orchestrator/shared/runtime";
import { type ToolContext, type ToolName, type ToolResult } from "@agent-orchestrator/shared/wire";
import { orchestratorMetrics } from "../orchestrator-metrics.js";
import { ToolClient } from "./tool-client.js";

/**
 * A ToolClient whose every call is a span (the tool-runner's server span is its child) and a metric. It
 * records the tool, the outcome, the error code, the virtual path and the size a result reports: never
 * the arguments or the content.
 */
export class InstrumentedToolClient extends ToolClient {
  override call(name: ToolName, callId: string, context: ToolContext, args: unknown, signal?: AbortSignal): Promise<ToolResult> {
    const started = performance.now();
    return inSpan(`execute_tool ${name}`, { attributes: { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name } }, async (span) => {
      const result = await super.call(name, callId, context, args, signal).catch((error: unknown) => {
        // only an abort rejects (cancel, turn deadline): counted under its code
        orchestratorMetrics.toolCalls.observe({ tool: name, outcome: errorType(error) }, (performance.now() - started) / 1000);
        throw error;
      });
      const outcome = result.success ? "ok" : result.error.code;
      orchestratorMetrics.toolCalls.observe({ tool: name, outcome }, (performance.now() - started) / 1000);
      span.setAttribute("ao.tool.outcome", outcome);
      if (!result.success) {
        span.setAttribute("error.type", result.error.code);
        span.setStatus({ code: SpanStatusCode.ERROR, message: result.error.code });
      }
      if (result.success && typeof result["path"] === "string") span.setAttribute("ao.tool.path", result["path"]);
      if (result.success && typeof result["size"] === "number") span.setAttribute("ao.tool.bytes", result["size"]);
      return result;
    });
  }
}
