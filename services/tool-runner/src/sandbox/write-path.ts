import type { Stats } from "node:fs";
import { lstat, mkdir, realpath } from "node:fs/promises";
import path from "node:path";
import type { AppError } from "@agent-orchestrator/shared";
import { isInside } from "./containment.js";
import { accessDenied, errnoCode, sandboxError } from "./sandbox-error.js";

/**
 * docs/security.md "The sandbox algorithm", step 7, first half: walks from the session folder down to the target's parent, creating
 * missing folders one level at a time (never `mkdir -p`, which follows a planted link and creates outside,
 * docs/security.md case 22) and `lstat`ing each level. Writes never go through a symlink, even one that stays inside
 * the session folder: the model cannot make links, so one there was planted. Returns the parent directory.
 */
export async function prepareParentDirectories(
  sessionFolder: string,
  segments: readonly string[],
  detail: Record<string, unknown>,
): Promise<string> {
  let current = sessionFolder;
  for (const segment of segments) {
    const next = path.join(current, segment);
    let stats = await lstatIfExists(next);
    if (!stats) {
      await mkdir(next).catch((error: unknown) => {
        if (errnoCode(error) !== "EEXIST") throw error;
      });
      stats = await lstat(next);
    }
    if (stats.isSymbolicLink()) throw await symlinkVerdict(next, sessionFolder, detail);
    if (!stats.isDirectory()) throw sandboxError("INVALID_PATH", "Invalid path: a folder in the path is a file", detail);
    // no component is a link, so the real path must be the path itself; anything else is a race
    if ((await realpath(next)) !== next) throw accessDenied("PATH_CHANGED", { ...detail, reason: "folder changed", folder: next });
    current = next;
  }
  return current;
}

/**
 * Checks an existing write target: a symlink is refused (docs/security.md case 25), as is anything but a regular file, and
 * a file with other hard links (`nlink > 1`), whose other names may lie outside the sandbox (docs/security.md case 26).
 */
export async function assertWritableTarget(target: string, sessionFolder: string, detail: Record<string, unknown>): Promise<void> {
  const stats = await lstatIfExists(target);
  if (!stats) return;
  if (stats.isSymbolicLink()) throw await symlinkVerdict(target, sessionFolder, detail);
  if (stats.isDirectory()) throw sandboxError("NOT_A_FILE", "Not a file: a folder has that name", detail);
  if (!stats.isFile()) throw sandboxError("NOT_A_REGULAR_FILE", "Not a regular file", detail);
  if (stats.nlink > 1) throw accessDenied("ACCESS_DENIED", { ...detail, reason: "target has other hard links" });
}

async function symlinkVerdict(link: string, sessionFolder: string, detail: Record<string, unknown>): Promise<AppError> {
  const target = await realpath(link).catch(() => undefined);
  const logged = { ...detail, reason: "symlink in write path", link, target };
  return target !== undefined && isInside(sessionFolder, target)
    ? accessDenied("ACCESS_DENIED", logged)
    : accessDenied("SYMLINK_ESCAPE", logged);
}

async function lstatIfExists(target: string): Promise<Stats | undefined> {
  try {
    return await lstat(target);
  } catch (error) {
    if (errnoCode(error) === "ENOENT") return undefined;
    throw error;
  }
}
