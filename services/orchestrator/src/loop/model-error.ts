import OpenAI from "openai";
import { AppError } from "@agent-orchestrator/shared/runtime";

/**
 * Classifies a failed model call. The openai client has already retried what is retryable (it is the
 * only retry layer), so whatever reaches here is final.
 */
export function toModelError(error: unknown, options: { textStreamed: boolean; signal: AbortSignal }): AppError {
  if (AppError.is(error)) return error;
  if (options.signal.aborted) {
    const reason: unknown = options.signal.reason;
    return AppError.is(reason) ? reason : new AppError("CANCELLED", "The turn was cancelled");
  }
  if (error instanceof OpenAI.APIConnectionTimeoutError) {
    return new AppError("MODEL_TIMEOUT", "The model did not answer in time", { cause: error });
  }
  if (error instanceof OpenAI.RateLimitError) {
    return new AppError("MODEL_RATE_LIMITED", "The model is rate limited; try again later", { cause: error });
  }
  if (error instanceof OpenAI.APIError && error.status !== undefined && isOverflowRefusal(error)) {
    return new AppError("MODEL_UNAVAILABLE", "The conversation is longer than the model's context window; the model refused it", {
      cause: error,
      detail: { status: error.status, reason: contextLengthExceeded },
    });
  }
  if (error instanceof OpenAI.APIError && error.status !== undefined) {
    return new AppError("MODEL_UNAVAILABLE", `The model refused the request (HTTP ${error.status})`, {
      cause: error,
      detail: { status: error.status },
    });
  }
  if (options.textStreamed) {
    return new AppError("UPSTREAM_INTERRUPTED", "The model's answer was cut off; please send your message again", { cause: error });
  }
  return new AppError("MODEL_UNAVAILABLE", "The model could not be reached", { cause: error });
}

const contextLengthExceeded = "context_length_exceeded";

/**
 * A refusal of a prompt longer than the model's window: OpenAI's and Azure's `code: "context_length_exceeded"`, or
 * the words vLLM ("maximum context length"), llama.cpp ("exceeds the available context size") and others answer a
 * 400 with (docs/models.md "Compaction").
 */
function isOverflowRefusal(error: InstanceType<typeof OpenAI.APIError>): boolean {
  if (error.code === contextLengthExceeded) return true;
  return error.status === 400 && /context length|context window|context size|too many tokens|maximum context/i.test(error.message);
}

/** Whether a classified model error is the provider's refusal of a prompt longer than its window (the loop compacts once and retries). */
export const isContextOverflow = (error: unknown): boolean => AppError.is(error) && error.detail?.["reason"] === contextLengthExceeded;
