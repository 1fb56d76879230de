import { encodeTree, writeLooseObject, type EntryKind, type TreeEntry } from "../git/tree-object.js";

/** What is at `path` (`/`-separated) after the edit: an entry (a file, a link, a submodule), or nothing (`null`). */
export interface TreeEdit {
  path: string;
  entry: { kind: Exclude<EntryKind, "tree">; id: string } | null;
}

/** Where the trees being edited are read. */
export interface TreeSource {
  entries(id: string): Promise<TreeEntry[]>;
}

interface Pending {
  names: readonly string[];
  entry: TreeEdit["entry"];
}

/**
 * The tree `root` with `edits` made, as git's index would write it: a removal takes whatever is at its path (a file,
 * or a folder with all below it), then an entry is put at its path, replacing a file or a folder there; a folder
 * left empty goes. Only the trees on the edited paths are read and written (loose, into `objectDirectory`), so the
 * cost follows the edits, not the tree's size. Undefined when the edits contradict each other or the tree (two
 * entries at one path, one put both at a path and below it, or below a file nothing removed): the caller reads the
 * files whole instead.
 */
export async function editTree(source: TreeSource, root: string, edits: readonly TreeEdit[], objectDirectory: string): Promise<string | undefined> {
  const pending = edits.map((edit) => ({ names: edit.path.split("/"), entry: edit.entry }));
  const edited = await rewrite(source, root, pending, objectDirectory);
  if (edited === false) return undefined;
  return edited ?? writeLooseObject(objectDirectory, "tree", encodeTree([]));
}

/** The tree's new id, undefined when it is left empty, false when the edits contradict each other. */
async function rewrite(source: TreeSource, tree: string | undefined, edits: readonly Pending[], objectDirectory: string): Promise<string | undefined | false> {
  const entries = new Map<string, TreeEntry>((tree === undefined ? [] : await source.entries(tree)).map((entry) => [entry.name, entry]));
  const byName = new Map<string, { here: Pending[]; below: Pending[] }>();
  for (const edit of edits) {
    const [name = "", ...rest] = edit.names;
    const group = byName.get(name) ?? { here: [], below: [] };
    (rest.length === 0 ? group.here : group.below).push({ names: rest, entry: edit.entry });
    byName.set(name, group);
  }
  for (const [name, { here, below }] of byName) {
    if (name === "") return false;
    const put = here.filter((edit) => edit.entry !== null);
    if (put.length > 1 || (put.length === 1 && below.some((edit) => edit.entry !== null))) return false;
    let existing = entries.get(name);
    if (here.length > put.length) {
      entries.delete(name);
      existing = undefined;
    }
    const leaf = put[0]?.entry;
    if (leaf) {
      // what is below goes with what the entry replaced
      entries.set(name, { name, ...leaf });
      continue;
    }
    if (below.length === 0) continue;
    if (existing !== undefined && existing.kind !== "tree") {
      // below a file: only removals, which find nothing there
      if (below.some((edit) => edit.entry !== null)) return false;
      continue;
    }
    const sub = await rewrite(source, existing?.id, below, objectDirectory);
    if (sub === false) return false;
    if (sub === undefined) entries.delete(name);
    else entries.set(name, { name, kind: "tree", id: sub });
  }
  if (entries.size === 0) return undefined;
  return writeLooseObject(objectDirectory, "tree", encodeTree([...entries.values()]));
}
