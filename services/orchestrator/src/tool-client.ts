import type { NatsConnection } from "nats";
import { natsMessageBudget } from "./nats-message-budget.js";
import {
  AppError,
  encodeJson,
  requestJson,
  subjects,
  ToolResult,
  type ErrorCode,
  type ToolContext,
  type ToolName,
} from "@agent-orchestrator/shared";

/**
 * Retries of a tool call whose answer never came (docs/security.md case 69: a tool-runner died mid-call). Only
 * a timeout is retried: in nats.js a request made while reconnecting is buffered and then answered or
 * timed out, a closed connection is final, and "no responders" means no tool-runner runs at all, which
 * the model hears at once (docs/security.md case 68). A tool's own error result is an answer and is never retried.
 */
export interface ToolRetryPolicy {
  /** attempts after the first */
  retries: number;
}

export const defaultToolRetry: ToolRetryPolicy = { retries: 2 };

/** Calls the tool-runner over NATS. A tool-runner failure becomes a tool result the model can read. */
export class ToolClient {
  constructor(
    private readonly connection: NatsConnection,
    private readonly timeoutMs: number,
    private readonly subjectPrefix = "",
    private readonly retry: ToolRetryPolicy = defaultToolRetry,
  ) {}

  /**
   * Calls a tool. An unanswered call is sent again with the same `callId` (the idempotency key): a replica
   * still running it shares that run, one that finished it answers from its own cache, and any replica
   * answers a finished `save_output` or `run_script` from the session's completion record; a read that
   * reaches another replica simply runs again. An abort (cancel, turn deadline) rejects at once
   * with the abort's reason; the tool-runner's late answer is then ignored.
   */
  async call(name: ToolName, callId: string, context: ToolContext, args: unknown, signal?: AbortSignal): Promise<ToolResult> {
    // encoded once: measured against max_payload, then sent
    const data = encodeJson({ call_id: callId, context, arguments: args });
    // a request NATS would refuse is the model's doing: it hears so, and the turn goes on
    const size = data.byteLength;
    const budget = natsMessageBudget(this.connection);
    if (size > budget) {
      return { success: false, error: { code: "CONTENT_TOO_LARGE", message: `The arguments take ${size} bytes; a tool call may take at most ${budget}. Send less at once.` } };
    }
    const attempts = this.retry.retries + 1;
    for (let attempt = 1; ; attempt++) {
      try {
        const request = requestJson(
          this.connection,
          this.subjectPrefix + subjects.tool(name),
          data,
          ToolResult,
          { timeoutMs: this.timeoutMs },
        );
        return signal ? await abortable(request, signal) : await request;
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        const code: ErrorCode = AppError.is(error) ? error.code : "INTERNAL";
        if (code === "SERVICE_TIMEOUT" && attempt < attempts) continue;
        const message =
          code === "SERVICE_UNAVAILABLE"
            ? "The file tools are not available right now (no tool-runner is running)."
            : code === "SERVICE_TIMEOUT"
              ? `The tool did not answer within ${this.timeoutMs} ms (${attempts} attempts).`
              : "The tool call failed.";
        return { success: false, error: { code, message } };
      }
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
