import type { ErrorBody, ErrorCode } from "../wire/error-code.js";

/**
 * The one error class of the system. `code` is from the closed set; `message` is safe to show to a client
 * (no host paths, no stack); `detail` is for the service log only.
 */
export class AppError extends Error {
  override readonly name = "AppError";
  readonly code: ErrorCode;
  readonly detail: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options: { cause?: unknown; detail?: Record<string, unknown> } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.detail = options.detail;
  }

  toBody(): ErrorBody {
    return { code: this.code, message: this.message };
  }

  static is(value: unknown): value is AppError {
    return value instanceof AppError;
  }
}

/** Turns anything thrown into a client-safe error body; unknown errors become INTERNAL with a generic message. */
export function toErrorBody(error: unknown): ErrorBody {
  if (AppError.is(error)) return error.toBody();
  return { code: "INTERNAL", message: "Internal error" };
}
