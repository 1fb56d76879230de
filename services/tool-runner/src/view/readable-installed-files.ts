import path from "node:path";
import { isProtectedSegment } from "../paths/protected-names.js";
import type { ContextRoots, RootEntry } from "../sandbox/sandbox-roots.js";
import type { InstalledFile, InstalledFileList } from "./installed-files.js";

// the readable files of an index by the roots that read them; an installed agent's roots differ only by its bundle
const readable = new WeakMap<InstalledFileList, Map<string, InstalledFile[]>>();
const maxRootSets = 64;

/**
 * The installed files one call may read, by the checks a read makes (sandbox.ts `locate` and `onDisk`): the
 * lexical path inside one of the context's installed roots and its real path inside one's real path, with no
 * protected name below the most specific of either. An installed agent sees every BMAD tree and skill folder; a
 * custom bundle only its bundle and core (docs/security.md "What the model may touch"). Kept per index and set
 * of roots, so a call filters thousands of installed files once, not every time.
 */
export function readableInstalledFiles(list: InstalledFileList, roots: ContextRoots): readonly InstalledFile[] {
  const key = roots.installed.map((root) => `${root.lexical}\u0000${root.real}`).join("\u0000");
  let byRoots = readable.get(list);
  if (!byRoots) {
    byRoots = new Map();
    readable.set(list, byRoots);
  }
  const known = byRoots.get(key);
  if (known) return known;
  const files = list.files.filter((file) => readableBelow(roots.installed, file.lexical, "lexical") && readableBelow(roots.installed, file.real, "real"));
  if (byRoots.size === maxRootSets) byRoots.clear();
  byRoots.set(key, files);
  return files;
}

/**
 * matchRoot (sandbox-roots.ts) by string prefix, then no protected name below the root: the same verdict for the
 * normalised absolute paths both sides hold here (from path.join, path.resolve and realpath), without a
 * path.relative per root and file.
 */
function readableBelow(roots: readonly RootEntry[], candidate: string, by: "lexical" | "real"): boolean {
  let best: string | undefined;
  for (const root of roots) {
    const folder = root[by];
    const inside = candidate === folder || candidate.startsWith(folder.endsWith(path.sep) ? folder : `${folder}${path.sep}`);
    if (inside && (best === undefined || folder.length > best.length)) best = folder;
  }
  if (best === undefined) return false;
  return !candidate.slice(best.length).split(path.sep).some(isProtectedSegment);
}
