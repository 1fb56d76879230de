import type { ToolContext, ToolName, ToolResult } from "@agent-orchestrator/shared/wire";

/**
 * "Call a tool", the loop's seam to the tools: the orchestrator passes the NATS `ToolClient`; tests and the
 * in-process benchmark pass functions. A tool's failure is a `ToolResult` the model reads; only an abort
 * rejects (with the signal's reason).
 */
export interface ToolCaller {
  call(name: ToolName, callId: string, context: ToolContext, args: unknown, signal?: AbortSignal): Promise<ToolResult>;
}
