import { encodeTree, writeLooseObject, type TreeEntry } from "../git/index.js";
import type { TreeReader } from "../repository/index.js";

/**
 * The tree `root` holding only the files `keep` names (paths from the root; folders left empty go, as in git),
 * its new trees written as loose objects into `objectDirectory`; a folder that keeps all it had keeps its id, so
 * only the trees on the paths of what is left out are written. Undefined when nothing is kept.
 */
export async function filteredTree(reader: TreeReader, root: string, keep: ReadonlySet<string>, objectDirectory: string): Promise<string | undefined> {
  return filter(reader, root, "", keep, objectDirectory);
}

async function filter(reader: TreeReader, tree: string, at: string, keep: ReadonlySet<string>, objectDirectory: string): Promise<string | undefined> {
  const entries = await reader.entries(tree);
  const kept: TreeEntry[] = [];
  let changed = false;
  for (const entry of entries) {
    const path = at === "" ? entry.name : `${at}/${entry.name}`;
    if (entry.kind === "tree") {
      const sub = await filter(reader, entry.id, path, keep, objectDirectory);
      if (sub !== undefined) kept.push(sub === entry.id ? entry : { ...entry, id: sub });
      changed ||= sub !== entry.id;
    } else if (keep.has(path)) kept.push(entry);
    else changed = true;
  }
  if (kept.length === 0) return undefined;
  return changed ? writeLooseObject(objectDirectory, "tree", encodeTree(kept)) : tree;
}
