import type { Dirent, Stats } from "node:fs";
import { lstat, opendir, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { assertDescriptorPath, descriptorDirectoryPath, openDirectory } from "./descriptor-path.js";
import { findProtectedSegment, isProtectedSegment } from "../paths/protected-names.js";
import { accessDenied, errnoCode } from "../paths/sandbox-error.js";
import { matchRoot, type RootEntry } from "./sandbox-roots.js";
import { isServableName } from "../paths/servable-name.js";

/** One entry of a listing. Folders have size 0. */
export interface FolderEntry {
  name: string;
  type: "file" | "directory";
  size: number;
  /** a file of the project's read-only code snapshot */
  read_only?: true;
}

/**
 * Lists a directory already checked in step 4, through the opened descriptor (so a swap of the path after
 * the checks is not followed), stopping after `maxEntries` (docs/security.md case 38: 100k entries cost no more than
 * `maxEntries` lstat calls). Protected names are left out; a symlink is listed only when it resolves inside
 * a readable root, typed as its target; sockets, FIFOs and devices are left out. A name the tools could not
 * open again (servable-name.ts; a script can create one) is left out too and counted in `unservable`, so
 * every name listed can be opened and none carries a raw control or bidi character (docs/security.md case 142);
 * those names take room under `maxEntries` like listed ones, so a folder of them costs no more.
 */
export async function listFolder(
  realPath: string,
  checked: Stats,
  readable: readonly RootEntry[],
  maxEntries: number,
): Promise<{ entries: FolderEntry[]; truncated: boolean; unservable: number }> {
  const handle = await openDirectory(realPath);
  try {
    const opened = await handle.stat();
    if (opened.dev !== checked.dev || opened.ino !== checked.ino) {
      throw accessDenied("PATH_CHANGED", { reason: "folder changed between check and open", realPath });
    }
    await assertDescriptorPath(handle, realPath);
    const base = descriptorDirectoryPath(handle, realPath);
    const entries: FolderEntry[] = [];
    let truncated = false;
    let unservable = 0;
    // breaking out of the loop closes the directory stream
    for await (const dirent of await opendir(base)) {
      if (isProtectedSegment(dirent.name)) continue;
      const servable = isServableName(dirent.name) && (await decodedNameExists(base, dirent.name));
      const entry = servable ? await describe(base, dirent, readable) : undefined;
      if (servable && !entry) continue;
      if (entries.length + unservable === maxEntries) {
        truncated = true;
        break;
      }
      if (entry) entries.push(entry);
      else unservable++;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { entries, truncated, unservable };
  } finally {
    await handle.close();
  }
}

/**
 * False for a name that is not valid UTF-8 on disk: Node decodes it with U+FFFD, a name that does not exist,
 * so it could never be opened. Only such names cost an lstat here.
 */
async function decodedNameExists(base: string, name: string): Promise<boolean> {
  if (!name.includes("\uFFFD")) return true;
  return lstat(path.join(base, name)).then(
    () => true,
    () => false,
  );
}

async function describe(base: string, dirent: Dirent, readable: readonly RootEntry[]): Promise<FolderEntry | undefined> {
  const entryPath = path.join(base, dirent.name);
  try {
    if (dirent.isDirectory()) return { name: dirent.name, type: "directory", size: 0 };
    if (dirent.isFile()) return { name: dirent.name, type: "file", size: (await lstat(entryPath)).size };
    if (!dirent.isSymbolicLink()) return undefined;
    const target = matchRoot(readable, await realpath(entryPath), "real");
    if (!target || findProtectedSegment(target.relative) !== undefined) return undefined;
    const stats = await stat(entryPath);
    if (stats.isDirectory()) return { name: dirent.name, type: "directory", size: 0 };
    return stats.isFile() ? { name: dirent.name, type: "file", size: stats.size } : undefined;
  } catch (error) {
    // an entry removed while listing, or a dangling link, is simply not listed
    if (errnoCode(error) === "ENOENT") return undefined;
    throw error;
  }
}
