import type { AppError, Logger } from "@agent-orchestrator/shared/runtime";
import type { StoredResponse } from "@agent-orchestrator/shared/wire";
import { toOpenAiError } from "./openai-error.js";

/** How a response's end is kept: `persist` stores the record (a no-op with `store: false`). */
export interface ResponseEnd {
  store: boolean;
  persist(record: StoredResponse): Promise<void>;
  /** the client went away, which cancelled the turn */
  clientGone(): boolean;
  logger: Logger;
}

/**
 * The record of a response whose turn failed (`cancelled` when the turn was cancelled, or its client went away),
 * stored as such. Storing it
 * cannot fail the answer: the client is told of the turn's own error, and a store that cannot be reached leaves the
 * record in progress, which a later read shows as incomplete (responses-routes.ts).
 */
export async function failedResponse(record: StoredResponse, error: AppError, end: ResponseEnd): Promise<StoredResponse> {
  const { code, message } = toOpenAiError(error).body.error;
  const failed: StoredResponse = {
    ...record,
    status: error.code === "CANCELLED" || end.clientGone() ? "cancelled" : "failed",
    error: { code: code ?? "server_error", message },
  };
  try {
    await end.persist(failed);
  } catch (storeError) {
    end.logger.warn({ err: storeError, response_id: record.id }, "a failed response could not be stored");
  }
  return failed;
}
