import type { NatsConnection } from "nats";
import { natsMessageBudget } from "../nats/nats-message-budget.js";
import { AppError, encodeJson, natsFailureKind, requestJson, retryNats } from "@agent-orchestrator/shared/runtime";
import { subjects, ToolResult, type ErrorCode, type ToolContext, type ToolName } from "@agent-orchestrator/shared/wire";
import { toolWaitMs, type ToolWaits } from "./tool-wait.js";

/**
 * Which failed tool calls are sent again (docs/security.md cases 68, 69, 145). Only "no responders" is: NATS
 * answers it at once when no tool-runner subscribes to the subject (one restarting, interest not yet
 * propagated after a reconnect or a cluster's leader change), so nothing was delivered and nothing ran; it
 * is retried for `unavailableForMs` at most. A timeout is never sent again: the call may still be running
 * (a long script, a busy replica) or have run on a replica that died, so a repeat would make the model wait
 * as long once more per attempt and could run it twice. A tool's own error result is an answer and
 * is never retried either.
 */
export interface ToolRetryPolicy {
  /** how long "no responders" is retried, in all, before the model hears SERVICE_UNAVAILABLE */
  unavailableForMs: number;
  /** the first pause between those attempts; each next one doubles (retryNats) */
  pauseMs: number;
}

/** The tools whose answers depend on BMAD's settings of the chat: they merge them over the install's config. */
const toolsReadingSettings: ReadonlySet<ToolName> = new Set(["load_skill", "preload_workflow", "run_script"]);

export const defaultToolRetry: ToolRetryPolicy = { unavailableForMs: 2_000, pauseMs: 100 };

/**
 * A failure the tool-runner never answered, as the model sees it: `may_have_run` says whether the call may
 * have had its effects (false: it was never delivered; true: check before calling again).
 */
export type UnansweredToolResult = ToolResult & { success: false; may_have_run: boolean };

/** Calls the tool-runner over NATS. A tool-runner failure becomes a tool result the model can read. */
export class ToolClient {
  constructor(
    private readonly connection: NatsConnection,
    private readonly waits: ToolWaits,
    private readonly subjectPrefix = "",
    private readonly retry: ToolRetryPolicy = defaultToolRetry,
  ) {}

  /**
   * Calls a tool, at most once as far as any tool-runner can tell: only a call no tool-runner received is
   * sent again (ToolRetryPolicy). The `callId` is still the idempotency key: a turn redelivered to another
   * orchestrator calls again with the same ids, and a replica answers a finished call from its cache or the
   * session's completion records. An abort (cancel, turn deadline) rejects at once with the abort's reason;
   * the tool-runner's late answer is then ignored.
   */
  async call(name: ToolName, callId: string, context: ToolContext, args: unknown, signal?: AbortSignal): Promise<ToolResult> {
    // encoded once: measured against max_payload, then sent; the settings only to the tools that read BMAD's config,
    // so they never take room a file's content needs (docs/settings.md)
    const { settings, ...plain } = context;
    const sent = settings !== undefined && toolsReadingSettings.has(name) ? context : plain;
    const data = encodeJson({ call_id: callId, context: sent, arguments: args });
    // a request NATS would refuse is the model's doing: it hears so, and the turn goes on
    const size = data.byteLength;
    const budget = natsMessageBudget(this.connection);
    if (size > budget) {
      return { success: false, error: { code: "CONTENT_TOO_LARGE", message: `The arguments take ${size} bytes; a tool call may take at most ${budget}. Send less at once.` } };
    }
    const timeoutMs = toolWaitMs(name, args, this.waits);
    try {
      return await retryNats(
        () => {
          const request = requestJson(this.connection, this.subjectPrefix + subjects.tool(name), data, ToolResult, { timeoutMs });
          return signal ? abortable(request, signal) : request;
        },
        { retryOn: ["no-responders"], budgetMs: this.retry.unavailableForMs, firstDelayMs: this.retry.pauseMs, ...(signal ? { signal } : {}) },
      );
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      return this.unanswered(AppError.is(error) ? error.code : "INTERNAL", natsFailureKind(error) === "no-responders", timeoutMs);
    }
  }

  private unanswered(code: ErrorCode, undelivered: boolean, timeoutMs: number): UnansweredToolResult {
    if (undelivered) {
      const seconds = this.retry.unavailableForMs / 1000;
      return {
        success: false,
        error: { code: "SERVICE_UNAVAILABLE", message: `The file tools are not available right now (no tool-runner is running; none answered for ${seconds} s). The call did not run.` },
        may_have_run: false,
      };
    }
    if (code === "SERVICE_TIMEOUT") {
      const message = `The tool did not answer within ${timeoutMs} ms and was not sent again: it may still be running (a long script) or may have stopped with its tool-runner. Check what it did (list_files, read_file) before calling it again.`;
      return { success: false, error: { code, message }, may_have_run: true };
    }
    // a payload NATS refused never left; anything else (a connection closed mid-call, a reply that does not parse) may have run
    return { success: false, error: { code, message: "The tool call failed." }, may_have_run: code !== "PAYLOAD_TOO_LARGE" };
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
