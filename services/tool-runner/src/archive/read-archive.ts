import type { ArchiveSummary, OnArchiveFile } from "./archive-file.js";
import type { ArchiveLimits } from "./archive-limits.js";
import { readTarGz } from "./read-tar-gz.js";
import { readZip } from "./read-zip.js";

export type ArchiveFormat = "zip" | "tar.gz";

/**
 * Reads an archive on local disk and extracts nothing. The whole archive is checked first, every file
 * inflated and counted and none kept; only when every rule holds (names: entry-path.ts; types: read-zip.ts,
 * read-tar-gz.ts; counts, sizes and paths: archive-tally.ts, archive-limits.ts) is it read again, and `onFile`
 * called for each regular file in order with its bytes (a buffer of at most maxEntryBytes). So a refused
 * archive (ARCHIVE_REFUSED, naming the entry and the rule) never reaches `onFile`; a failure of `onFile`
 * itself goes on as it is. `strip` removes the first names of every path, as tar's --strip-components; an
 * entry with no more names than that is skipped.
 */
export async function readArchive(
  file: string,
  format: ArchiveFormat,
  limits: ArchiveLimits,
  onFile: OnArchiveFile,
  options: { strip?: number } = {},
): Promise<ArchiveSummary> {
  const strip = options.strip ?? 0;
  const read = format === "zip" ? readZip : readTarGz;
  await read(file, limits, strip);
  return read(file, limits, strip, onFile);
}
