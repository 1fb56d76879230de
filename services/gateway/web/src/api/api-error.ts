/**
 * A failed call as the page shows it: the gateway's error code and message, or one of the page's own codes
 * when no answer came (`NETWORK_ERROR`, `BAD_RESPONSE`, `STREAM_ENDED`).
 */
export class ApiError extends Error {
  override readonly name = "ApiError";

  constructor(
    readonly code: string,
    message: string,
    /** the HTTP status, when there was an answer */
    readonly status?: number,
  ) {
    super(message);
  }

  static is(error: unknown): error is ApiError {
    return error instanceof ApiError;
  }
}

/** Any thrown value as an ApiError, so every failure is shown the same way. */
export const toApiError = (error: unknown): ApiError =>
  ApiError.is(error) ? error : new ApiError("INTERNAL", error instanceof Error ? error.message : String(error));
