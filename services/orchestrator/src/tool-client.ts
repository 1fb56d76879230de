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

  /**
   * Calls a tool. An abort (cancel, turn deadline) rejects at once with the abort's reason; the
   * tool-runner's late answer is then ignored.
   */
  async call(name: ToolName, callId: string, context: ToolContext, args: unknown, signal?: AbortSignal): Promise<ToolResult> {
    try {
      const request = requestJson(
        this.connection,
        this.subjectPrefix + subjects.tool(name),
        { call_id: callId, context, arguments: args },
        ToolResult,
        { timeoutMs: this.timeoutMs },
      );
      return signal ? await abortable(request, signal) : await request;
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
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

/** Settles with `work`, or rejects with the signal's reason as soon as it aborts. */
function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error as Error);
      },
    );
  });
}
