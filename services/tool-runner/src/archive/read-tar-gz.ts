import { createReadStream } from "node:fs";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import { Parser, type ReadEntry } from "tar";
import type { ArchiveFile, ArchiveSummary, OnArchiveFile } from "./archive-file.js";
import { passesRatio, type ArchiveLimits } from "./archive-limits.js";
import { archiveRefused, entryRefused } from "./archive-refused.js";
import { ArchiveTally } from "./archive-tally.js";
import { EntryContent } from "./entry-content.js";
import { entryPath } from "./entry-path.js";

const fileTypes = new Set(["File", "OldFile", "ContiguousFile"]);
const refusedTypes = new Map([
  ["SymbolicLink", "a symbolic link"],
  ["Link", "a hard link"],
  ["CharacterDevice", "a character device"],
  ["BlockDevice", "a block device"],
  ["FIFO", "a FIFO"],
]);
// a pax header or GNU long name holds a path and a few fields; a larger one is refused, not read
const maxMetaEntrySize = 64 << 10;

/**
 * One pass over a tar.gz, read as a stream: gunzip (the whole stream held to the ratio limit), then node-tar's
 * parser (never its extract), each entry checked as its header comes, before its data is read. Without
 * `onFile` it only checks; with it, it hands each file's bytes on in order, waiting for each. Throws
 * ARCHIVE_REFUSED at the first broken rule, and stops reading there.
 */
export async function readTarGz(file: string, limits: ArchiveLimits, strip: number, onFile?: OnArchiveFile): Promise<ArchiveSummary> {
  const tally = new ArchiveTally(limits);
  // the files the parser finished within one chunk: at most one large, as files come one after the other
  const ready: { file: ArchiveFile; content: Buffer }[] = [];
  const tar = checkingParser(tally, strip, onFile && ((entry, content) => ready.push({ file: entry, content })));
  const deliver = async () => {
    for (const next of ready.splice(0)) await onFile?.(next.file, next.content);
  };
  const gunzip = createGunzip();
  let failure: unknown;
  try {
    await pipeline(createReadStream(file), gunzip, async (chunks: AsyncIterable<Buffer>) => {
      try {
        let inflated = 0;
        for await (const chunk of chunks) {
          // a tar starts with a name, never 0x1f: this is a gzip in the gzip, which the parser would inflate unchecked
          if (inflated === 0 && chunk[0] === 0x1f) throw archiveRefused("its tar.gz holds another compressed stream instead of a tar");
          inflated += chunk.length;
          if (passesRatio(inflated, gunzip.bytesWritten, limits)) {
            throw archiveRefused(`it inflates more than ${limits.maxRatio} times its compressed size (a gzip bomb)`);
          }
          // past the tar's end marker the parser would only gather what follows: it is inflated (so checked), not parsed
          if (tar.ended()) continue;
          // every check runs inside write(), and a broken rule is thrown out of it
          tar.parser.write(chunk);
          await deliver();
        }
        tar.parser.end();
        await deliver();
      } catch (error) {
        // pipeline may reject with its own abort error instead: the first failure is the one that counts
        failure = error;
        throw error;
      }
    });
  } catch (error) {
    const first = failure ?? error;
    // zlib's errors are the archive's fault; a refusal, or a failure of the host or of onFile, goes on as it is
    if (!isZlibError(first)) throw first;
    throw archiveRefused(`it is not a gzip stream that can be read (${first.message})`, first);
  }
  return tally.summary();
}

/**
 * node-tar's parser, strict (a bad header is an error, not skipped), with every entry checked by the tally as
 * its header comes; each file's bytes handed to `take` as it ends, when there is one. Every listener runs,
 * and throws, inside the parser's write() or end(). `ended` is true once the tar's end marker was read.
 */
function checkingParser(tally: ArchiveTally, strip: number, take: ((entry: ArchiveFile, content: Buffer) => void) | undefined) {
  let ended = false;
  const parser = new Parser({ strict: true, zstd: false, brotli: false, maxMetaEntrySize });
  parser.on("entry", (entry: ReadEntry) => {
    tally.countEntry();
    const name = entry.path;
    const path = entryPath(name, strip);
    if (entry.type === "Directory") {
      if (path !== undefined) tally.addFolder(name, path);
    } else if (!fileTypes.has(entry.type)) {
      throw entryRefused(name, `is ${refusedTypes.get(entry.type) ?? `a tar entry of type ${entry.type}`}; an archive may hold only files and folders`);
    } else if (path !== undefined) {
      tally.addFile(name, path, entry.size);
      if (take) {
        const content = new EntryContent(entry.size);
        entry.on("data", (chunk: Buffer) => content.add(chunk));
        entry.on("end", () => take({ path, size: entry.size }, content.bytes()));
        return;
      }
    }
    entry.resume();
  });
  // what the parser skips: a type it does not know, or a metadata header over maxMetaEntrySize
  parser.on("ignoredEntry", (entry: ReadEntry) => {
    tally.countEntry();
    throw entryRefused(entry.path, entry.meta ? `has a metadata header larger than ${maxMetaEntrySize} bytes` : `is a tar entry of an unsupported type (${entry.type})`);
  });
  parser.on("error", (error: unknown) => {
    throw archiveRefused(`it is not a tar archive that can be read (${error instanceof Error ? error.message : String(error)})`, error);
  });
  parser.on("eof", () => (ended = true));
  return { parser, ended: () => ended };
}

function isZlibError(error: unknown): error is Error {
  return error instanceof Error && "code" in error && typeof error.code === "string" && error.code.startsWith("Z_");
}
