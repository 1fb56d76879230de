import type { z } from "zod";

/**
 * The first issue of a failed parse as one line, `path: message`, for error messages a caller or the model
 * reads; `root` names an issue without a path (the whole value).
 */
export function firstIssue(error: z.ZodError, root: string): string {
  const issue = error.issues[0];
  return `${issue?.path.join(".") || root}: ${issue?.message ?? "invalid"}`;
}
