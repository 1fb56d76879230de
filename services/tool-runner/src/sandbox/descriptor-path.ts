import { existsSync } from "node:fs";
import { readlink, type FileHandle } from "node:fs/promises";
import { accessDenied } from "./sandbox-error.js";

// `/proc/self/fd` is Linux only; elsewhere the dev/ino comparison is the post-open check.
const procFdAvailable = process.platform === "linux" && existsSync("/proc/self/fd");

/**
 * RELIABILITY step 5: after opening, asks the kernel what was really opened. This catches a parent
 * directory swapped for a symlink between the checks and the open (attack case 24), which O_NOFOLLOW
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
