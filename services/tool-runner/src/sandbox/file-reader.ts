import { constants, type Stats } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { utf8PrefixEnd } from "@agent-orchestrator/shared/runtime";
import { assertDescriptorPath } from "./descriptor-path.js";
import { accessDenied, errnoCode } from "../paths/sandbox-error.js";

/** What was read: at most the cap, and whether the file had more. */
export interface CappedRead {
  bytes: Buffer;
  /** the file's size when opened, or the bytes seen if it grew past that */
  size: number;
  truncated: boolean;
}

// O_NONBLOCK: if a FIFO is swapped in after the checks, open returns at once instead of hanging (docs/security.md case 32).
const readFlags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const initialChunk = 64 * 1024;

/**
 * docs/security.md "The sandbox algorithm", step 6 for a path already checked in step 5: opens without following a final symlink, checks
 * that the opened file is the regular file that was checked (same dev/ino, same path per the kernel), and
 * reads at most `maxBytes + 1` bytes from the handle, never trusting `stat.size` (it is 0 for `/proc`
 * files and a file can grow while read, docs/security.md case 31).
 */
export async function readFileCapped(realPath: string, checked: Stats, maxBytes: number): Promise<CappedRead> {
  let handle: FileHandle;
  try {
    handle = await open(realPath, readFlags);
  } catch (error) {
    if (errnoCode(error) === "ELOOP") throw accessDenied("PATH_CHANGED", { reason: "file became a symlink", realPath });
    throw error;
  }
  try {
    // both checks of what was opened run at once; the file's identity is judged first
    const descriptorChecked = assertDescriptorPath(handle, realPath);
    descriptorChecked.catch(() => undefined);
    const opened = await handle.stat();
    if (!opened.isFile() || opened.dev !== checked.dev || opened.ino !== checked.ino) {
      throw accessDenied("PATH_CHANGED", { reason: "file changed between check and open", realPath });
    }
    await descriptorChecked;
    const { bytes, total } = await readUpTo(handle, maxBytes + 1, opened.size);
    const truncated = total > maxBytes;
    return {
      // a cut never splits a UTF-8 character, so truncated text still decodes
      bytes: bytes.subarray(0, truncated ? utf8PrefixEnd(bytes.subarray(0, total), maxBytes) : total),
      size: Math.max(opened.size, total),
      truncated,
    };
  } finally {
    await handle.close();
  }
}

// Grows the buffer as data arrives, so a small file costs a small buffer whatever the cap.
async function readUpTo(handle: FileHandle, limit: number, sizeHint: number): Promise<{ bytes: Buffer; total: number }> {
  let bytes = Buffer.allocUnsafe(Math.min(limit, Math.max(sizeHint + 1, initialChunk)));
  let total = 0;
  for (;;) {
    if (total === bytes.length) {
      if (bytes.length >= limit) break;
      const grown = Buffer.allocUnsafe(Math.min(limit, bytes.length * 2));
      bytes.copy(grown, 0, 0, total);
      bytes = grown;
    }
    const { bytesRead } = await handle.read(bytes, total, bytes.length - total, null);
    if (bytesRead === 0) break;
    total += bytesRead;
  }
  return { bytes, total };
}
