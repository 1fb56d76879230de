import type { ListedFile } from "../api/api-client.js";

export interface TreeFolder {
  kind: "folder";
  name: string;
  /** "" for the project root, else `docs/research` (no trailing slash) */
  path: string;
  children: TreeNode[];
  /** every file below is read-only: the code snapshot's, or a repository's */
  readOnly: boolean;
}

export interface TreeFile {
  kind: "file";
  name: string;
  path: string;
  file: ListedFile;
}

export type TreeNode = TreeFolder | TreeFile;

const byKindThenName = (left: TreeNode, right: TreeNode): number =>
  left.kind !== right.kind ? (left.kind === "folder" ? -1 : 1) : left.name.localeCompare(right.name, undefined, { numeric: true });

/** The project's flat file list as folders and files, folders first, names in natural order (`v2` before `v10`). */
export function buildFileTree(files: ListedFile[]): TreeFolder {
  const root: TreeFolder = { kind: "folder", name: "", path: "", children: [], readOnly: true };
  // a Map, not an object: folder names are the user's and may be `__proto__`
  const folders = new Map<string, TreeFolder>([["", root]]);
  const folderAt = (path: string): TreeFolder => {
    const known = folders.get(path);
    if (known) return known;
    const slash = path.lastIndexOf("/");
    const parent = folderAt(slash === -1 ? "" : path.slice(0, slash));
    const folder: TreeFolder = { kind: "folder", name: path.slice(slash + 1), path, children: [], readOnly: true };
    parent.children.push(folder);
    folders.set(path, folder);
    return folder;
  };
  for (const file of files) {
    const slash = file.path.lastIndexOf("/");
    const parentPath = slash === -1 ? "" : file.path.slice(0, slash);
    folderAt(parentPath).children.push({ kind: "file", name: file.path.slice(slash + 1), path: file.path, file });
    if (!file.read_only) for (let path: string | undefined = parentPath; path !== undefined; path = parentOf(path)) (folders.get(path) as TreeFolder).readOnly = false;
  }
  for (const folder of folders.values()) folder.children.sort(byKindThenName);
  return root;
}

/** The folder holding `path`: "" for a top-level name, undefined for the root itself. */
export function parentOf(path: string): string | undefined {
  if (path === "") return undefined;
  const slash = path.lastIndexOf("/");
  return slash === -1 ? "" : path.slice(0, slash);
}
