import { AppError } from "@agent-orchestrator/shared/runtime";

/** Longest path the file messages carry (shared/src/wire/projects/file-messages.ts). */
const maxPathLength = 1024;

/**
 * A file's path inside a project or chat space from a route's `*path` segments, which express has
 * URL-decoded once. The tool-runner checks every path again with the store's rules; refusing `..`, `.`,
 * empty segments (an absolute path or `//`), backslashes and control characters here keeps a crafted URL
 * (`%2E%2E`, `%2F`) from reaching it at all, with one clear 400.
 */
export function spacePath(segments: unknown): string {
  const path = Array.isArray(segments) ? segments.join("/") : "";
  const invalid = (why: string) => new AppError("INVALID_PATH", `Not a file path in the project: ${why}`);
  if (path === "" || path.length > maxPathLength) throw invalid(`give 1 to ${maxPathLength} characters`);
  if (/[\\\u0000-\u001f\u007f]/.test(path)) throw invalid("no backslashes or control characters");
  for (const segment of path.split("/")) {
    if (segment === "") throw invalid("no absolute paths or empty segments");
    if (segment === "." || segment === "..") throw invalid("no `.` or `..` segments");
  }
  return path;
}
