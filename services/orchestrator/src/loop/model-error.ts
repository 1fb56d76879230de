import OpenAI from "openai";
import { AppError } from "@agent-orchestrator/shared";

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
