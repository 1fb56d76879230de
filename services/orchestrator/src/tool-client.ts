import type { NatsConnection } from "nats";
import {
  AppError,
  requestJson,
  subjects,
  ToolResult,
  type ErrorCode,
  type ToolContext,
  type ToolName,
} from "@agent-orchestrator/shared";

/** Calls the tool-runner over NATS. A tool-runner failure becomes a tool result the model can read. */
export class ToolClient {
  constructor(
    private readonly connection: NatsConnection,
    private readonly timeoutMs: number,
    private readonly subjectPrefix = "",
  ) {}

  async call(name: ToolName, callId: string, context: ToolContext, args: unknown): Promise<ToolResult> {
    try {
      return await requestJson(
        this.connection,
        this.subjectPrefix + subjects.tool(name),
        { call_id: callId, context, arguments: args },
        ToolResult,
        { timeoutMs: this.timeoutMs },
      );
    } catch (error) {
      const code: ErrorCode = AppError.is(error) ? error.code : "INTERNAL";
      const message =
        code === "SERVICE_UNAVAILABLE"
          ? "The file tools are not available right now (no tool-runner is running)."
          : code === "SERVICE_TIMEOUT"
            ? `The tool did not answer within ${this.timeoutMs} ms.`
            : "The tool call failed.";
      return { success: false, error: { code, message } };
    }
  }
}
