import type { ArchiveSummary } from "./archive-file.js";
import type { ArchiveLimits } from "./archive-limits.js";
import { archiveRefused, entryRefused } from "./archive-refused.js";

// what a path already stands for: a file, a folder entry, or a folder only named by a deeper path
type PathKind = "file" | "folder" | "implied folder";

/**
 * The key two paths share when a case-insensitive or normalising file system (macOS, Windows) would make them one:
 * NFC, then lower case. Such a pair unpacks there as one file, the other's content lost or mixed in, and reads to
 * the model as two names for one thing (docs/uploads.md "What an archive may hold").
 */
const foldedPath = (path: string): string => path.normalize("NFC").toLowerCase();

/**
 * What one pass over an archive has seen so far, held to the limits as each entry comes: the entry count,
 * the files and their sizes, and every path (so a duplicate, a path that is a file and a folder, or two paths
 * equal but for case or Unicode normalisation, is refused whichever comes first). Throws ARCHIVE_REFUSED naming
 * the entry.
 */
export class ArchiveTally {
  private entries = 0;
  private files = 0;
  private folders = 0;
  private bytes = 0;
  private readonly kinds = new Map<string, PathKind>();
  /** every path seen, by its folded form (foldedPath) */
  private readonly folded = new Map<string, string>();

  constructor(private readonly limits: ArchiveLimits) {}

  /** Counts one entry of any kind, before anything else is done with it. */
  countEntry(): void {
    this.entries += 1;
    if (this.entries > this.limits.maxEntries) throw archiveRefused(`it holds more than ${this.limits.maxEntries} entries`);
  }

  /** A folder entry at `path`; `name` is the entry's name in the archive, for the message. */
  addFolder(name: string, path: string): void {
    this.addParents(name, path);
    const kind = this.kinds.get(path);
    if (kind === "folder") throw entryRefused(name, "appears twice in the archive");
    if (kind === "file") throw entryRefused(name, "is both a file and a folder");
    if (kind === undefined) this.claim(name, path);
    this.kinds.set(path, "folder");
    this.folders += 1;
  }

  /** A regular file at `path` of `size` bytes (as its header declares it; the reader holds it to that). */
  addFile(name: string, path: string, size: number): void {
    if (size > this.limits.maxEntryBytes) throw entryRefused(name, `is ${size} bytes; a file may have at most ${this.limits.maxEntryBytes}`);
    if (this.bytes + size > this.limits.maxTotalBytes) {
      throw entryRefused(name, `makes the files add up to more than ${this.limits.maxTotalBytes} bytes, the most an archive may hold`);
    }
    this.addParents(name, path);
    const kind = this.kinds.get(path);
    if (kind === "file") throw entryRefused(name, "appears twice in the archive");
    if (kind !== undefined) throw entryRefused(name, "is both a file and a folder");
    this.claim(name, path);
    this.kinds.set(path, "file");
    this.files += 1;
    this.bytes += size;
  }

  summary(): ArchiveSummary {
    return { files: this.files, bytes: this.bytes, folders: this.folders };
  }

  private addParents(name: string, path: string): void {
    for (let slash = path.indexOf("/"); slash !== -1; slash = path.indexOf("/", slash + 1)) {
      const parent = path.slice(0, slash);
      const kind = this.kinds.get(parent);
      if (kind === "file") throw entryRefused(name, "lies below a path that is also a file");
      if (kind === undefined) {
        this.claim(name, parent, true);
        this.kinds.set(parent, "implied folder");
      }
    }
  }

  /**
   * Takes a path new to this archive (the entry's own, or a `parent` folder it implies), refused if another path
   * differs from it only by case or normalisation.
   */
  private claim(name: string, path: string, parent = false): void {
    const key = foldedPath(path);
    const other = this.folded.get(key);
    if (other !== undefined) {
      // both paths passed entryPath's checks: no control or bidi character to escape
      const subject = parent ? `is in the folder ${JSON.stringify(path)}, which clashes` : "clashes";
      throw entryRefused(name, `${subject} with ${JSON.stringify(other)}: two paths may not differ only by case or Unicode normalisation`);
    }
    this.folded.set(key, path);
  }
}
