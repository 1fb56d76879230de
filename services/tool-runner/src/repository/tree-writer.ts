import { encodeTree, writeLooseObject, type TreeEntry } from "../git/tree-object.js";
import { sandboxError } from "../paths/sandbox-error.js";
import type { TreeReader } from "./tree-reader.js";

/** One file of a tree written (`content`) or removed (`null`); `path` is `/`-separated, checked by the caller. */
export interface TreeChange {
  path: string;
  content: Uint8Array | null;
}

interface Pending {
  names: string[];
  content: Uint8Array | null;
}

/**
 * The tree `root` with `changes` made, written as loose objects into `objectDirectory`: each changed file's blob,
 * and the trees on its path, nothing else, so a change costs the same in a small repository and a large one. A
 * file keeps its executable bit. A folder left empty goes, as in git. A change through a symbolic link or a
 * submodule, or of one, is refused (RELIABILITY case 91: a link in the repository is never followed), as is a
 * file where a folder is or the other way round. Returns the new root's id.
 */
export async function writeTree(reader: TreeReader, root: string, changes: readonly TreeChange[], objectDirectory: string): Promise<string> {
  const pending = changes.map((change) => ({ names: change.path.split("/"), content: change.content }));
  const written = await rewrite(reader, root, pending, "", objectDirectory);
  return written ?? writeLooseObject(objectDirectory, "tree", encodeTree([]));
}

async function rewrite(reader: TreeReader, tree: string | undefined, changes: readonly Pending[], at: string, objectDirectory: string): Promise<string | undefined> {
  const entries = new Map<string, TreeEntry>((tree === undefined ? [] : await reader.entries(tree)).map((entry) => [entry.name, entry]));
  const byName = new Map<string, Pending[]>();
  for (const change of changes) {
    const [name = ""] = change.names;
    byName.set(name, [...(byName.get(name) ?? []), { names: change.names.slice(1), content: change.content }]);
  }
  for (const [name, group] of byName) {
    const path = at === "" ? name : `${at}/${name}`;
    const existing = entries.get(name);
    if (existing?.kind === "symlink" || existing?.kind === "submodule") {
      throw sandboxError("SYMLINK_ESCAPE", `Access denied: {project-root}/${path} is a ${existing.kind === "symlink" ? "symbolic link" : "submodule"} in the repository; the tools never follow or replace one`);
    }
    const leaf = group.find((change) => change.names.length === 0);
    if (leaf && group.length > 1) throw sandboxError("INVALID_PATH", `{project-root}/${path} is written both as a file and as a folder`);
    if (leaf) {
      if (existing?.kind === "tree") throw sandboxError("NOT_A_FILE", `Not a file: {project-root}/${path} is a folder`);
      if (leaf.content === null) entries.delete(name);
      else {
        const id = await writeLooseObject(objectDirectory, "blob", leaf.content);
        entries.set(name, { name, kind: existing?.kind === "executable" ? "executable" : "file", id });
      }
      continue;
    }
    if (existing !== undefined && existing.kind !== "tree") throw sandboxError("INVALID_PATH", `{project-root}/${path} is a file, not a folder`);
    const sub = await rewrite(reader, existing?.id, group, path, objectDirectory);
    if (sub === undefined) entries.delete(name);
    else entries.set(name, { name, kind: "tree", id: sub });
  }
  if (entries.size === 0) return undefined;
  return writeLooseObject(objectDirectory, "tree", encodeTree([...entries.values()]));
}
