import { constants, existsSync } from "node:fs";
import { open, readlink, type FileHandle } from "node:fs/promises";
import { accessDenied, errnoCode } from "../paths/sandbox-error.js";

// `/proc/self/fd` is Linux only; elsewhere the dev/ino comparison is the post-open check.
const procFdAvailable = process.platform === "linux" && existsSync("/proc/self/fd");

/**
 * docs/security.md "The sandbox algorithm", step 6: after opening, asks the kernel what was really opened. This catches a parent
 * directory swapped for a symlink between the checks and the open (docs/security.md case 24), which O_NOFOLLOW
 * cannot see because it only guards the last component.
 */
export async function assertDescriptorPath(handle: FileHandle, expected: string): Promise<void> {
  if (!procFdAvailable) return;
  const actual = await readlink(`/proc/self/fd/${handle.fd}`);
  if (actual !== expected) {
    throw accessDenied("PATH_CHANGED", { reason: "opened file is not the checked one", expected, actual });
  }
}

/** A path that names the already opened directory itself, so listing it cannot follow a swapped path. */
export function descriptorDirectoryPath(handle: FileHandle, fallback: string): string {
  return procFdAvailable ? `/proc/self/fd/${handle.fd}` : fallback;
}

const directoryFlags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/**
 * Opens a directory that was checked to be a real directory, without following a symlink put in its place
 * since (Linux answers ELOOP or ENOTDIR for that): PATH_CHANGED, fail closed.
 */
export async function openDirectory(directory: string): Promise<FileHandle> {
  try {
    return await open(directory, directoryFlags);
  } catch (error) {
    const code = errnoCode(error);
    if (code === "ELOOP" || code === "ENOTDIR") {
      throw accessDenied("PATH_CHANGED", { reason: "folder changed after the checks", directory, errno: code });
    }
    throw error;
  }
}
