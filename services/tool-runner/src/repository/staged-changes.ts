import { lstat, readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { GitFailed, type GitResult } from "../git/git-command.js";
import { encodeIndex, readIndex } from "../git/index-file.js";
import type { TreeLookup } from "./tree-reader.js";
import type { TreeEdit } from "./tree-edits.js";

/**
 * Runs the host's git on the checkout's files (GIT_DIR the host's, never the command's), its index a small one of
 * the caller's (`StagingPlace.scratchIndex`) and its new objects written where the caller stores them from.
 */
export type IndexGit = (args: readonly string[], input?: string) => Promise<GitResult>;

/** Files whose change alters what `git add -A` takes elsewhere in the tree: one of them changed, the whole tree is read. */
const rulesFiles = new Set([".gitignore", ".gitattributes"]);

/** What the files tree before the window holds at a path (TreeReader.lookup on it). */
export type IndexedAt = (name: string) => Promise<TreeLookup>;

/** What staging a window's changes needs from its caller. */
export interface StagingPlace {
  git: IndexGit;
  /** the checkout's files */
  directory: string;
  /** the index file `git` uses: made here with the changed paths only, removed after */
  scratchIndex: string;
  /** what the files tree before the window holds */
  indexed: IndexedAt;
  /** that tree with `edits` made and written (tree-edits.ts editTree); undefined when they contradict it */
  edit: (edits: readonly TreeEdit[]) => Promise<string | undefined>;
}

/** A window's files tree, and the files it took (hashed again: their entries in the host's index are out of date). */
export interface StagedTree {
  tree: string;
  taken: readonly string[];
}

/**
 * The files tree `git add -A` and `git write-tree` would make after the changes at `changed` (paths below the
 * checkout, files or folders, present or gone), made from the tree before them without reading or writing the
 * host's index (docs/repositories.md "What changed, without reading every file"): a path gone takes all below it
 * from the tree; a folder is read whole; a file or link is taken when the tree holds it or git does not ignore it
 * (`git check-ignore --no-index`). The files taken are hashed by `git update-index` into a small index holding
 * only them (with their entries from the tree, so git converts line endings exactly as it would in the host's
 * index), and the trees on their paths are written. Undefined, having written nothing any tree names, whenever
 * the paths alone cannot say what `git add -A` would do: an ignore or attributes file changed, a `.git` below the
 * root (a nested repository), a submodule on the way, a FIFO or socket, a name that is not UTF-8, git refusing
 * a step. Then the caller reads every file.
 */
export async function stagedTree(place: StagingPlace, changed: ReadonlySet<string>): Promise<StagedTree | undefined> {
  const { directory, indexed } = place;
  const removed = new Set<string>();
  const tracked = new Map<string, NonNullable<TreeEdit["entry"]>>();
  const candidates = new Set<string>();
  const plain = new Map<string, boolean>();
  const take = async (name: string, held?: TreeLookup) => {
    const found = held ?? (await indexed(name));
    if (found.found === "link-on-path" && (await isSubmodule(indexed, found.at))) return false;
    if (found.found === "entry") {
      if (found.entry.kind === "submodule" || found.entry.kind === "tree") return false;
      tracked.set(name, { kind: found.entry.kind, id: found.entry.id });
    } else candidates.add(name);
    return true;
  };
  for (const name of changed) {
    const parts = name.split("/");
    if (parts.includes(".git") || parts.some((part) => rulesFiles.has(part))) return undefined;
    const held = await indexed(name);
    // what git never looks into: a submodule's folder (its files are the submodule's)
    if ((held.found === "entry" && held.entry.kind === "submodule") || (held.found === "link-on-path" && (await isSubmodule(indexed, held.at)))) return undefined;
    // below a file or a link (a folder replaced by one) a path is gone, as git sees it; it is never looked at through a link
    const seen = (await plainFoldersOn(directory, parts.slice(0, -1), plain)) ? await lstat(path.join(directory, name)).catch(() => undefined) : undefined;
    if (seen === undefined) {
      if (held.found === "entry" || held.found === "tree") removed.add(name);
    } else if (seen.isDirectory()) {
      // a folder may have replaced a file or another folder, or hold files no event named (made before its watch): read it whole
      if (held.found === "entry" || held.found === "tree") removed.add(name);
      const below: string[] = [];
      if (!(await filesBelow(directory, name, below))) return undefined;
      for (const file of below) if (!(await take(file))) return undefined;
    } else if (seen.isFile() || seen.isSymbolicLink()) {
      // a file or link where a folder was: the folder's files go, whether or not git takes the file
      if (held.found === "tree") removed.add(name);
      if (!(await take(name, held))) return undefined;
    } else return undefined;
  }
  try {
    const taken = [...tracked.keys(), ...(candidates.size === 0 ? [] : await notIgnored(place.git, [...candidates]))];
    const edits: TreeEdit[] = [...removed].map((name) => ({ path: name, entry: null }));
    if (taken.length > 0) {
      const seeds = [...tracked].map(([name, entry]) => ({ path: name, mode: modes[entry.kind], id: entry.id }));
      await writeFile(place.scratchIndex, encodeIndex(seeds), { mode: 0o600 });
      await place.git(["update-index", "--add", "--replace", "-z", "--stdin"], nulList(taken));
      const content = readIndex(await readFile(place.scratchIndex));
      if (content === undefined || content.entries.length !== taken.length) return undefined;
      for (const entry of content.entries) {
        const kind = kinds.get(entry.mode);
        if (kind === undefined || entry.stage !== 0) return undefined;
        edits.push({ path: entry.path, entry: { kind, id: entry.id } });
      }
    }
    const tree = await place.edit(edits);
    return tree === undefined ? undefined : { tree, taken };
  } catch (error) {
    if (error instanceof GitFailed) return undefined;
    throw error;
  } finally {
    await rm(place.scratchIndex, { force: true });
  }
}

const modes = { file: 0o100644, executable: 0o100755, symlink: 0o120000, submodule: 0o160000 } as const;
const kinds = new Map<number, "file" | "executable" | "symlink">([
  [modes.file, "file"],
  [modes.executable, "executable"],
  [modes.symlink, "symlink"],
]);

/** Whether the tree's entry at `at` (a link or a submodule on a path's way) is a submodule. */
async function isSubmodule(indexed: IndexedAt, at: string): Promise<boolean> {
  const found = await indexed(at);
  return found.found === "entry" && found.entry.kind === "submodule";
}

/** Adds every file and link below `folder` to `into`; false when one cannot be staged from here (see stagedTree). */
async function filesBelow(directory: string, folder: string, into: string[]): Promise<boolean> {
  const entries = await readdir(path.join(directory, folder), { withFileTypes: true }).catch(() => undefined);
  if (entries === undefined) return true;
  for (const entry of entries) {
    if (entry.name === ".git" || rulesFiles.has(entry.name) || entry.name.includes("\uFFFD")) return false;
    const name = `${folder}/${entry.name}`;
    if (entry.isDirectory()) {
      if (!(await filesBelow(directory, name, into))) return false;
    } else if (entry.isFile() || entry.isSymbolicLink()) into.push(name);
    else return false;
  }
  return true;
}

/** Whether each folder on the way (`parts`, from the root) is a real folder (not gone, a file or a link). */
async function plainFoldersOn(directory: string, parts: readonly string[], known: Map<string, boolean>): Promise<boolean> {
  for (let length = 1; length <= parts.length; length += 1) {
    const folder = parts.slice(0, length).join("/");
    let plain = known.get(folder);
    if (plain === undefined) {
      const seen = await lstat(path.join(directory, folder)).catch(() => undefined);
      plain = seen?.isDirectory() === true;
      known.set(folder, plain);
    }
    if (!plain) return false;
  }
  return true;
}

/** `paths` (none in the tree) without those git ignores (`git check-ignore --no-index`; exit 1 when none is). */
async function notIgnored(git: IndexGit, paths: readonly string[]): Promise<string[]> {
  let ignored: Set<string>;
  try {
    const result = await git(["check-ignore", "--no-index", "-z", "--stdin"], nulList(paths));
    ignored = new Set(result.stdout.toString("utf8").split("\0"));
  } catch (error) {
    if (!(error instanceof GitFailed) || error.exitCode !== 1) throw error;
    ignored = new Set();
  }
  return paths.filter((name) => !ignored.has(name));
}

function nulList(paths: readonly string[]): string {
  return paths.map((name) => `${name}\0`).join("");
}
