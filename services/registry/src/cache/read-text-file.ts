import { constants } from "node:fs";
import { open } from "node:fs/promises";

/** The text of a file, or why it was not read. */
export type ReadTextResult =
  | { ok: true; text: string }
  | { ok: false; code: "FILE_TOO_LARGE" | "UNREADABLE"; reason: string };

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Reads a regular file as UTF-8 text, never more than its size at open plus one byte, and never a file over `maxBytes`. Opened non-blocking, so a FIFO
 * swapped in after the caller's stat cannot hang the scan; the type and size are checked again on the open
 * handle. Invalid UTF-8 is refused rather than decoded into replacement characters.
 */
export async function readTextFile(path: string, maxBytes: number): Promise<ReadTextResult> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    return { ok: false, code: "UNREADABLE", reason: `cannot be opened (${(error as NodeJS.ErrnoException).code ?? "error"})` };
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) return { ok: false, code: "UNREADABLE", reason: "is not a regular file" };
    if (stats.size > maxBytes) return tooLarge(stats.size, maxBytes);
    // one byte more than the file's size: filling it means the file grew while we read it
    const buffer = Buffer.allocUnsafe(stats.size + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length === buffer.length) return { ok: false, code: "UNREADABLE", reason: "changed while being read" };
    try {
      return { ok: true, text: utf8.decode(buffer.subarray(0, length)) };
    } catch {
      return { ok: false, code: "UNREADABLE", reason: "is not valid UTF-8 text" };
    }
  } catch (error) {
    return { ok: false, code: "UNREADABLE", reason: `cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})` };
  } finally {
    await handle.close();
  }
}

function tooLarge(size: number, maxBytes: number): ReadTextResult {
  return { ok: false, code: "FILE_TOO_LARGE", reason: `is larger than the ${maxBytes}-byte limit (${size} bytes)` };
}
