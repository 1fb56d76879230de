/**
 * Reading an uploaded archive (a code snapshot, a zip of `_bmad-output/`) from local disk, checked whole before
 * any of it is handed on: no extraction, no link, no path out of its folder, no bomb.
 */
export type { ArchiveFile, ArchiveSummary, OnArchiveFile } from "./archive-file.js";
export type { ArchiveLimits } from "./archive-limits.js";
export { detectArchiveFormat } from "./detect-archive-format.js";
export { readArchive, type ArchiveFormat } from "./read-archive.js";
