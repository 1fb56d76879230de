import { AppError, type Logger } from "@agent-orchestrator/shared/runtime";

/**
 * Express' own errors (body too large, malformed JSON) and ours as one AppError; anything else is
 * INTERNAL. Logged here, once, whichever API's error shape the answer then takes.
 */
export function toAppError(error: unknown, logger: Logger): AppError {
  const status = (error as { status?: number }).status;
  const type = (error as { type?: string }).type;
  let appError: AppError;
  if (AppError.is(error)) appError = error;
  else if (type === "entity.too.large" || status === 413) appError = new AppError("PAYLOAD_TOO_LARGE", "The request body is too large");
  else if (type === "entity.parse.failed") appError = new AppError("BAD_REQUEST", "The request body is not valid JSON");
  else if (status !== undefined && status >= 400 && status < 500) appError = new AppError("BAD_REQUEST", "The request could not be read");
  else appError = new AppError("INTERNAL", "Internal error", { cause: error });

  if (appError.code === "INTERNAL") logger.error({ err: error }, "request failed");
  else logger.warn({ code: appError.code }, appError.message);
  return appError;
}
