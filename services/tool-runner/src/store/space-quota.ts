import { AppError } from "@agent-orchestrator/shared/runtime";

/** A space's limits: PROJECT_MAX_BYTES / PROJECT_MAX_FILES for a project, SESSION_MAX_* for a chat's scratch space. */
export interface SpaceQuota {
  maxBytes: number;
  maxFiles: number;
}

/** What a space holds by its index: its live files and the sum of their sizes. */
export interface SpaceUsage {
  bytes: number;
  files: number;
}

/**
 * The QUOTA_EXCEEDED error for a change from `before` to `after`, or undefined when it is allowed. A change
 * is refused only when it passes a limit and grows what passes it, so a space over its quota (a limit
 * lowered by the operator) may still rewrite a file with the same or less.
 */
export function quotaVerdict(what: "Project" | "Chat", before: SpaceUsage, after: SpaceUsage, quota: SpaceQuota): AppError | undefined {
  if (after.files > quota.maxFiles && after.files > before.files) {
    return new AppError(
      "QUOTA_EXCEEDED",
      `${what} quota reached: it holds ${before.files} files and may hold ${quota.maxFiles}. Rewrite an existing file instead of adding one.`,
    );
  }
  if (after.bytes > quota.maxBytes && after.bytes > before.bytes) {
    return new AppError(
      "QUOTA_EXCEEDED",
      `${what} quota reached: this would make ${after.bytes} bytes of files; it may hold ${quota.maxBytes}. Write less, or rewrite an existing file shorter.`,
    );
  }
  return undefined;
}
