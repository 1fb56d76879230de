import { open } from "node:fs/promises";
import type { ArchiveFormat } from "./read-archive.js";

/**
 * The format a file's first bytes name: `PK\x03\x04` (a zip's first entry) or `PK\x05\x06` (an empty zip's
 * end record) for zip, `1f 8b` (gzip) for tar.gz; undefined for anything else. Only the magic bytes are
 * read: whether a gzip holds a tar, readArchive finds out.
 */
export async function detectArchiveFormat(file: string): Promise<ArchiveFormat | undefined> {
  const handle = await open(file, "r");
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(4), 0, 4, 0);
    const magic = buffer.subarray(0, bytesRead);
    if (magic.equals(Buffer.from("PK\x03\x04", "latin1")) || magic.equals(Buffer.from("PK\x05\x06", "latin1"))) return "zip";
    if (magic[0] === 0x1f && magic[1] === 0x8b) return "tar.gz";
    return undefined;
  } finally {
    await handle.close();
  }
}
