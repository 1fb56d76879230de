import type { Dirent, Stats } from "node:fs";
import { lstat, readdir, realpath, stat } from "node:fs/promises";
import path from "node:path";
import type { ProjectLayout } from "../sandbox/project-layout.js";
import { findProtectedSegment, isProtectedSegment } from "../paths/protected-names.js";
import { matchRoot, type RootEntry } from "../sandbox/sandbox-roots.js";
import { isServableName } from "../paths/servable-name.js";

/** One installed BMAD file as the index knows it. */
export interface InstalledFile {
  /** where the project shows it: below a layout root's lexical path (`<project>/_bmad/bmm/config.yaml`) */
  lexical: string;
  /** where it really is, after every symlink */
  real: string;
  size: number;
  mtimeMs: number;
}

/** The index's files, and whether the entry bound stopped the walk before it saw them all. */
export interface InstalledFileList {
  files: readonly InstalledFile[];
  truncated: boolean;
}

/** How long an index is used, and how much of a hostile install it may take in. */
export interface InstalledFilesLimits {
  maxAgeMs: number;
  /** directory entries looked at in one walk, in all */
  maxEntries: number;
  /** folders below a layout root */
  maxDepth: number;
}

export const installedFilesLimits: InstalledFilesLimits = { maxAgeMs: 30_000, maxEntries: 50_000, maxDepth: 32 };

// a module's dependencies: thousands of files no instruction names (fact globs skip them too, fact-glob.ts)
const skippedFolder = "node_modules";

/**
 * The installed BMAD files (the layout's BMAD trees and skill folders, not its knowledge folders), walked once
 * and kept in memory, so find_files and search_files answer from an index and never walk a disk per call
 * (docs/file-tools.md "What find_files and search_files see"). Rebuilt when older than `maxAgeMs` or when the
 * layout's roots change. The walk keeps the listing
 * rules (folder-lister.ts): protected names are never entered, names the tools could not open are left out, a
 * symlink is followed only when its real target lies in an installed root (a folder never inside itself),
 * sockets, FIFOs and devices are left out, and at most `maxEntries` entries are looked at; `node_modules` is not
 * entered. Every file is still read through the sandbox, which checks it again.
 */
export class InstalledFiles {
  private built: { key: string; at: number; list: Promise<InstalledFileList> } | undefined;

  constructor(
    private readonly layout: () => Promise<ProjectLayout>,
    private readonly limits: InstalledFilesLimits = installedFilesLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /** The index, walked again first when stale; concurrent callers share one walk. */
  async list(): Promise<InstalledFileList> {
    const roots = (await this.layout()).roots.filter((root) => root.kind !== "knowledge").map(({ kind, lexical, real }) => ({ name: kind, lexical, real }));
    const key = roots.map((root) => `${root.lexical}\u0000${root.real}`).join("\u0000");
    const built = this.built;
    if (built && built.key === key && this.now() - built.at < this.limits.maxAgeMs) return built.list;
    const list = walkInstalled(roots, this.limits);
    const fresh = { key, at: this.now(), list };
    this.built = fresh;
    // a walk that failed as a whole is not kept: the next call walks again
    list.catch(() => {
      if (this.built === fresh) this.built = undefined;
    });
    return list;
  }
}

async function walkInstalled(roots: readonly RootEntry[], limits: InstalledFilesLimits): Promise<InstalledFileList> {
  const files: InstalledFile[] = [];
  let entries = 0;
  let truncated = false;

  // `ancestors`: the real folders on the way down, so a link back up is not followed into a loop
  const visit = async (lexical: string, real: string, ancestors: ReadonlySet<string>, depth: number): Promise<void> => {
    const dirents = await readdir(real, { withFileTypes: true }).catch((): Dirent[] => []);
    const folders: Array<{ lexical: string; real: string }> = [];
    const found = await Promise.all(
      dirents.map(async (dirent) => {
        if (truncated) return undefined;
        if (++entries > limits.maxEntries) {
          truncated = true;
          return undefined;
        }
        if (isProtectedSegment(dirent.name) || !isServableName(dirent.name)) return undefined;
        return describe(path.join(real, dirent.name), dirent, roots).catch(() => undefined);
      }),
    );
    for (const [index, entry] of found.entries()) {
      if (!entry) continue;
      const child = path.join(lexical, dirents[index]?.name ?? "");
      if (entry.stats.isFile()) files.push({ lexical: child, real: entry.real, size: entry.stats.size, mtimeMs: entry.stats.mtimeMs });
      else if (entry.stats.isDirectory() && depth < limits.maxDepth && !ancestors.has(entry.real) && dirents[index]?.name !== skippedFolder) {
        folders.push({ lexical: child, real: entry.real });
      }
    }
    for (const folder of folders) {
      if (truncated) return;
      await visit(folder.lexical, folder.real, new Set([...ancestors, folder.real]), depth + 1);
    }
  };

  for (const root of roots) {
    if (truncated) break;
    await visit(root.lexical, root.real, new Set([root.real]), 0);
  }
  return { files, truncated };
}

/** A file or folder of the walk with its real path, or undefined for what is left out (a link leading out, a FIFO). */
async function describe(entryPath: string, dirent: Dirent, roots: readonly RootEntry[]): Promise<{ real: string; stats: Stats } | undefined> {
  if (dirent.isFile() || dirent.isDirectory()) return { real: entryPath, stats: await lstat(entryPath) };
  if (!dirent.isSymbolicLink()) return undefined;
  const real = await realpath(entryPath);
  const target = matchRoot(roots, real, "real");
  if (!target || findProtectedSegment(target.relative) !== undefined) return undefined;
  return { real, stats: await stat(real) };
}
