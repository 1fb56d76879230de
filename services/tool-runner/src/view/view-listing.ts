import { isInstallPlace } from "@agent-orchestrator/shared/bmad";
import type { BranchFileListing } from "@agent-orchestrator/shared/wire";
import { isProtectedSegment } from "../paths/protected-names.js";
import { isServablePath } from "../paths/servable-name.js";
import type { TreeFile, TreeReader } from "../repository/index.js";

/** Paths the view never shows: BMAD's install places (the installed files cover them) and protected names. */
export function hiddenFromView(path: string): boolean {
  return isInstallPlace(path) || path.split("/").some(isProtectedSegment);
}

/** A file of a repository's tree as the files API lists it. */
export function branchFileListing(file: TreeFile): BranchFileListing {
  return { path: file.path, size: file.size, blob: file.id, executable: file.kind === "executable", read_only: true };
}

/**
 * The file `path` (checked by the caller) of the tree `root` as the view reads it, or undefined: what the view
 * lists is what it reads, so no link or submodule (never followed, on the way or at the end), protected name or
 * install place.
 */
export async function viewedFile(reader: TreeReader, root: string, path: string): Promise<TreeFile | undefined> {
  if (hiddenFromView(path) || !isServablePath(path)) return undefined;
  const found = await reader.lookup(root, path);
  if (found.found !== "entry" || (found.entry.kind !== "file" && found.entry.kind !== "executable")) return undefined;
  return { path, id: found.entry.id, kind: found.entry.kind, size: await reader.size(found.entry.id) };
}
