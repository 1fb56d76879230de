import { AppError } from "@agent-orchestrator/shared/runtime";
import { type ErrorCode } from "@agent-orchestrator/shared/wire";

/** Verdicts the model only ever sees as "Access denied" (docs/security.md "What the model may touch"): which rule fired is for the log. */
export type DeniedCode = Extract<
  ErrorCode,
  "ACCESS_DENIED" | "PATH_OUTSIDE_ROOT" | "SYMLINK_ESCAPE" | "PATH_CHANGED" | "PROTECTED_PATH"
>;

/**
 * A denial: the code says which rule fired, the message stays "Access denied" (plus an optional hint that
 * names no host path), and `detail` carries the host paths for the service log only.
 */
export function accessDenied(code: DeniedCode, detail: Record<string, unknown>, hint?: string): AppError {
  return new AppError(code, hint === undefined ? "Access denied" : `Access denied: ${hint}`, { detail });
}

/** Any other sandbox verdict. `message` must already be safe to show (virtual paths only). */
export function sandboxError(code: ErrorCode, message: string, detail?: Record<string, unknown>, cause?: unknown): AppError {
  return new AppError(code, message, { ...(detail === undefined ? {} : { detail }), ...(cause === undefined ? {} : { cause }) });
}

/** The errno code of a Node fs error, if it has one. */
export function errnoCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}
