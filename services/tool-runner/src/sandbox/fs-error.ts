import { AppError } from "@agent-orchestrator/shared/runtime";
import { accessDenied, errnoCode, sandboxError } from "../paths/sandbox-error.js";

/**
 * Turns an fs error into a sandbox verdict whose message names only the virtual path. The errno and host
 * path stay in `detail` for the log (docs/security.md case 37: no host path, no list of roots in the message).
 */
export function fromFsError(
  error: unknown,
  virtualPath: string,
  operation: "read" | "write" | "list",
  detail: Record<string, unknown>,
): AppError {
  if (AppError.is(error)) return error;
  const code = errnoCode(error);
  const logged = { ...detail, errno: code, error: error instanceof Error ? error.message : String(error) };
  switch (code) {
    case "ENOENT":
    case "ENOTDIR":
      return sandboxError("FILE_NOT_FOUND", `${operation === "list" ? "Folder" : "File"} not found: ${virtualPath}`, logged);
    case "EACCES":
    case "EPERM":
      return accessDenied("ACCESS_DENIED", logged);
    case "ELOOP":
      return accessDenied("SYMLINK_ESCAPE", logged);
    case "ENAMETOOLONG":
      return sandboxError("NAME_TOO_LONG", "A name in the path is too long", logged);
    case "EISDIR":
      return sandboxError("NOT_A_FILE", `Not a file: ${virtualPath} is a folder`, logged);
    case "ENOSPC":
    case "EDQUOT":
      return sandboxError("WRITE_FAILED", `Could not save ${virtualPath}: the disk is full`, logged, error);
    default:
      if (operation === "write") return sandboxError("WRITE_FAILED", `Could not save ${virtualPath}`, logged, error);
      return new AppError("INTERNAL", "Internal error", { cause: error, detail: logged });
  }
}
