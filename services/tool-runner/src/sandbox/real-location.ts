import { lstat, realpath } from "node:fs/promises";
import path from "node:path";
import { errnoCode } from "../paths/sandbox-error.js";

/** Where a path really points, after every symlink. */
export type RealLocation =
  | { exists: true; realPath: string }
  /** `realPath` is the realpath of the deepest existing ancestor plus the missing rest */
  | { exists: false; realPath: string; danglingSymlink: boolean };

/**
 * docs/security.md "The sandbox algorithm", step 5: realpath of the path, or of its deepest existing ancestor when it does not exist.
 * An ENOENT is never trusted blindly: `realpath` of a dangling symlink also says ENOENT, so the missing
 * entry is `lstat`ed and a dangling link is reported as such (docs/security.md case 20).
 */
export async function resolveRealLocation(hostPath: string): Promise<RealLocation> {
  try {
    return { exists: true, realPath: await realpath(hostPath) };
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
  const missing: string[] = [];
  let current = hostPath;
  for (;;) {
    const stats = await lstat(current).catch((error: unknown) => {
      if (isMissing(error)) return undefined;
      throw error;
    });
    if (stats) {
      if (stats.isSymbolicLink()) {
        const target = await realpath(current).catch((error: unknown) => {
          if (isMissing(error)) return undefined;
          throw error;
        });
        if (target === undefined) return { exists: false, realPath: current, danglingSymlink: true };
        return { exists: false, realPath: path.join(target, ...missing), danglingSymlink: false };
      }
      return { exists: false, realPath: path.join(await realpath(current), ...missing), danglingSymlink: false };
    }
    const parent = path.dirname(current);
    if (parent === current) return { exists: false, realPath: hostPath, danglingSymlink: false };
    missing.unshift(path.basename(current));
    current = parent;
  }
}

function isMissing(error: unknown): boolean {
  const code = errnoCode(error);
  return code === "ENOENT" || code === "ENOTDIR";
}
