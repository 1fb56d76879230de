import { AppError, type ManifestFile } from "@agent-orchestrator/shared";

/** A session's limits (SESSION_MAX_BYTES, SESSION_MAX_FILES). */
export interface SessionQuota {
  maxBytes: number;
  maxFiles: number;
}

/** What a session holds by its manifest: the files listed and the sum of their sizes. */
export interface SessionUsage {
  bytes: number;
  files: number;
}

/** The usage of a manifest's file list; the manifest is the source of truth, so no folder walk is needed. */
export function sessionUsage(files: readonly Pick<ManifestFile, "path" | "size">[]): SessionUsage {
  return { bytes: files.reduce((sum, file) => sum + file.size, 0), files: files.length };
}

/** The usage once `incoming` files are written: a path already listed is replaced, a new one joins. */
export function usageAfter(files: readonly Pick<ManifestFile, "path" | "size">[], incoming: readonly Pick<ManifestFile, "path" | "size">[]): SessionUsage {
  const sizes = new Map(files.map((file) => [file.path, file.size]));
  for (const file of incoming) sizes.set(file.path, file.size);
  return { bytes: [...sizes.values()].reduce((sum, size) => sum + size, 0), files: sizes.size };
}

/**
 * The QUOTA_EXCEEDED error for a change from `before` to `after`, or undefined when it is allowed. A change
 * is refused only when it passes a limit and grows what passes it, so a session over its quota (a script's
 * file that grew) may still rewrite a file with the same or less.
 */
export function quotaVerdict(before: SessionUsage, after: SessionUsage, quota: SessionQuota): AppError | undefined {
  if (after.files > quota.maxFiles && after.files > before.files) {
    return new AppError(
      "QUOTA_EXCEEDED",
      `Session quota reached: it holds ${before.files} files and may hold ${quota.maxFiles}. Rewrite an existing file instead of adding one.`,
    );
  }
  if (after.bytes > quota.maxBytes && after.bytes > before.bytes) {
    return new AppError(
      "QUOTA_EXCEEDED",
      `Session quota reached: this would make ${after.bytes} bytes of files; the session may hold ${quota.maxBytes}. Write less, or rewrite an existing file shorter.`,
    );
  }
  return undefined;
}
