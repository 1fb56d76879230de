/**
 * What one archive may hold. Every bound counts what the archive really holds (inflated bytes, every entry
 * of any kind), not only what its headers declare.
 */
export interface ArchiveLimits {
  /** entries of any kind: files, folders, and the links or devices that are refused anyway */
  maxEntries: number;
  /** the inflated bytes of all files together */
  maxTotalBytes: number;
  /** the inflated bytes of one file */
  maxEntryBytes: number;
  /** inflated bytes per compressed byte, checked once more than 1 MiB is inflated (of one zip file, or of a whole tar.gz stream) */
  maxRatio: number;
}

/** Below this many inflated bytes the ratio is not checked: a small, very regular file compresses far. */
const ratioFloorBytes = 1 << 20;

/** True once `inflated` bytes from `compressed` pass the ratio limit (a bomb), past the floor. */
export function passesRatio(inflated: number, compressed: number, limits: ArchiveLimits): boolean {
  return inflated > ratioFloorBytes && inflated > compressed * limits.maxRatio;
}
