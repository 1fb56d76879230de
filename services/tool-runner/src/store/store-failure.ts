import { AppError } from "@agent-orchestrator/shared/runtime";

/**
 * A JetStream failure while storing (a full stream, no leader during an election, a timeout) as the tool's
 * WRITE_FAILED: nothing was recorded, the earlier revision stands, and the model may try again.
 */
export function storeFailure(error: unknown): AppError {
  if (AppError.is(error)) return error;
  return new AppError("WRITE_FAILED", "The file could not be stored; nothing was changed. Try again shortly.", { cause: error });
}
