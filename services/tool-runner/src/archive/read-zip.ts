import { isUtf8 } from "node:buffer";
import { AppError } from "@agent-orchestrator/shared/runtime";
import yauzl, { type Entry, type ZipFile } from "yauzl";
import type { ArchiveSummary, OnArchiveFile } from "./archive-file.js";
import { passesRatio, type ArchiveLimits } from "./archive-limits.js";
import { archiveRefused, entryRefused } from "./archive-refused.js";
import { ArchiveTally } from "./archive-tally.js";
import { EntryContent } from "./entry-content.js";
import { entryPath } from "./entry-path.js";

// the unix file type in the high 16 bits of the external attributes
const fileTypeMask = 0o170000;
const regularFileType = 0o100000;
const folderType = 0o040000;
const symbolicLinkType = 0o120000;

interface ZipFileEntry {
  entry: Entry;
  name: string;
  path: string;
}

/**
 * One pass over a zip: its central directory first (the entry count before any entry is read, then every
 * name, type and declared size), then every file inflated and held to the size it declared. Without `onFile`
 * it only checks; with it, it hands each file's bytes on in order. Throws ARCHIVE_REFUSED at the first broken rule.
 */
export async function readZip(file: string, limits: ArchiveLimits, strip: number, onFile?: OnArchiveFile): Promise<ArchiveSummary> {
  const zip = await openZip(file);
  try {
    if (zip.entryCount > limits.maxEntries) throw archiveRefused(`it holds ${zip.entryCount} entries; an archive may have at most ${limits.maxEntries}`);
    const tally = new ArchiveTally(limits);
    for (const zipFile of await listFiles(zip, tally, strip, limits)) {
      const content = await inflate(zip, zipFile, onFile !== undefined);
      if (onFile && content) await onFile({ path: zipFile.path, size: zipFile.entry.uncompressedSize }, content.bytes());
    }
    return tally.summary();
  } finally {
    zip.close();
  }
}

async function openZip(file: string): Promise<ZipFile> {
  try {
    // names are decoded and checked here, not by yauzl: it would turn bytes that are not UTF-8 into U+FFFD
    // unseen, and its errors name no entry (strictFileNames has no effect then: a backslash is ours to refuse).
    // validateEntrySizes makes a file that inflates past its declared size an error.
    return await yauzl.openPromise(file, { autoClose: false, decodeStrings: false, validateEntrySizes: true });
  } catch (error) {
    throw unreadable(error);
  }
}

/** Every entry of the central directory checked; the regular files to inflate, in order. */
async function listFiles(zip: ZipFile, tally: ArchiveTally, strip: number, limits: ArchiveLimits): Promise<ZipFileEntry[]> {
  const files: ZipFileEntry[] = [];
  try {
    for await (const entry of zip.eachEntry()) {
      tally.countEntry();
      // UTF-8 is the only encoding read: a name that is not stands as U+FFFD, which entryPath refuses
      const name = isUtf8(entry.fileNameRaw) ? entry.fileNameRaw.toString("utf8") : "\uFFFD";
      const path = entryPath(name, strip);
      const type = (entry.externalFileAttributes >>> 16) & fileTypeMask;
      if (type === symbolicLinkType) throw entryRefused(name, "is a symbolic link; an archive may hold only files and folders");
      if (type !== 0 && type !== regularFileType && type !== folderType) {
        throw entryRefused(name, "is a device, a FIFO or a socket; an archive may hold only files and folders");
      }
      if (name.endsWith("/") || type === folderType) {
        if (path !== undefined) tally.addFolder(name, path);
        continue;
      }
      if (path === undefined) continue;
      if (entry.isEncrypted()) throw entryRefused(name, "is encrypted");
      if (!entry.canDecodeFileData()) throw entryRefused(name, `uses a compression method that cannot be read (${entry.compressionMethod}); use deflate`);
      // inflating stops at the declared size, so the declared ratio bounds the real one
      if (passesRatio(entry.uncompressedSize, entry.compressedSize, limits)) {
        throw entryRefused(name, `inflates more than ${limits.maxRatio} times its compressed size (a zip bomb)`);
      }
      tally.addFile(name, path, entry.uncompressedSize);
      files.push({ entry, name, path });
    }
  } catch (error) {
    throw unreadable(error);
  }
  return files;
}

/**
 * A file's data inflated, counting every byte, and stopped (its stream destroyed) the moment it passes its
 * declared size, which the tally held to the limits. Its bytes when `keep` is true.
 */
async function inflate(zip: ZipFile, zipFile: ZipFileEntry, keep: boolean): Promise<EntryContent | undefined> {
  const { entry, name } = zipFile;
  const content = keep ? new EntryContent(entry.uncompressedSize) : undefined;
  let inflated = 0;
  try {
    const stream = await zip.openReadStreamPromise(entry);
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      inflated += chunk.length;
      // yauzl's validateEntrySizes stops it first; checked here too, as every limit rests on this bound
      if (inflated > entry.uncompressedSize) throw entryRefused(name, `inflates to more than the ${entry.uncompressedSize} bytes its header declares`);
      content?.add(chunk);
    }
  } catch (error) {
    if (isRefusalOrHostError(error)) throw error;
    throw entryRefused(name, dataProblem(error), error);
  }
  return content;
}

// yauzl's own wording for the two ways validateEntrySizes finds a file's data to differ from its header
function dataProblem(error: unknown): string {
  const message = error instanceof Error ? error.message : "";
  if (message.startsWith("too many bytes")) return "inflates to more bytes than its header declares";
  if (message.startsWith("not enough bytes")) return "inflates to fewer bytes than its header declares";
  return "has data that cannot be inflated (it is corrupt)";
}

/** A refusal or a host failure as it is; anything else means the file is no zip yauzl can read. */
function unreadable(error: unknown): unknown {
  if (isRefusalOrHostError(error)) return error;
  return archiveRefused(`it is not a zip archive that can be read (${error instanceof Error ? error.message : String(error)})`, error);
}

// a refusal already made, or a failure of the host's file system (it has a `syscall`): no fault of the zip's
function isRefusalOrHostError(error: unknown): boolean {
  return AppError.is(error) || (error instanceof Error && "syscall" in error);
}
