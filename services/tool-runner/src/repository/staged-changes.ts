import { lstat, readdir } from "node:fs/promises";
import path from "node:path";
import { GitFailed, type GitResult } from "../git/git-command.js";

/** Runs the host's git on the checkout's files and the host's index (GIT_DIR the host's, never the command's). */
export type IndexGit = (args: readonly string[], input?: string) => Promise<GitResult>;

/** Files whose change alters what `git add -A` takes elsewhere in the tree: one of them changed, the whole tree is read. */
const rulesFiles = new Set([".gitignore", ".gitattributes"]);

/** What the host's index holds at a path: the files tree it was made from says (a file or link, a folder, nothing). */
export type IndexedAt = (name: string) => Promise<"file" | "folder" | "none">;

/**
 * Brings the host's index to the files at `changed` (paths below `directory`, files or folders, present or gone),
 * as `git add -A` would for them (docs/repositories.md "What changed, without reading every file"): a path gone
 * leaves the index with all below it, a folder is read whole, a file or link is added when the index holds it or
 * git does not ignore it. `indexed` says what the index holds, so a tracked file needs no ignore check and an
 * untracked one that is gone needs nothing. Returns false, having changed nothing the full `git add -A` would not
 * redo, whenever the paths alone cannot say what `git add -A` would do: an ignore or attributes file changed, a
 * `.git` below the root (a nested repository), a FIFO or socket, a name that is not UTF-8, or git refusing a step.
 */
export async function stageChanges(git: IndexGit, directory: string, changed: ReadonlySet<string>, indexed: IndexedAt): Promise<boolean> {
  const folders: string[] = [];
  const files: string[] = [];
  const candidates: string[] = [];
  const plain = new Map<string, boolean>();
  const take = async (name: string) => ((await indexed(name)) === "file" ? files : candidates).push(name);
  for (const name of changed) {
    const parts = name.split("/");
    if (parts.includes(".git") || parts.some((part) => rulesFiles.has(part))) return false;
    // below a file or a link (a folder replaced by one) a path is gone, as git sees it; it is never looked at through a link
    const seen = (await plainFoldersOn(directory, parts.slice(0, -1), plain)) ? await lstat(path.join(directory, name)).catch(() => undefined) : undefined;
    const held = await indexed(name);
    if (seen === undefined) {
      if (held === "folder") folders.push(name);
      else if (held === "file") files.push(name);
    } else if (seen.isDirectory()) {
      // a folder may have replaced a file or another folder, or hold files no event named (made before its watch): read it whole
      if (held !== "none") folders.push(name);
      const below: string[] = [];
      if (!(await filesBelow(directory, name, below))) return false;
      for (const file of below) await take(file);
    } else if (seen.isFile() || seen.isSymbolicLink()) await take(name);
    else return false;
  }
  try {
    if (folders.length > 0) await git(["--literal-pathspecs", "rm", "--cached", "-r", "-f", "-q", "--ignore-unmatch", "--pathspec-from-file=-", "--pathspec-file-nul"], nulList(folders));
    const taken = [...files, ...(candidates.length === 0 ? [] : await notIgnored(git, candidates))];
    // --remove: a file gone leaves the index; --replace: a file where a folder was (or the other way) replaces it
    if (taken.length > 0) await git(["update-index", "--add", "--remove", "--replace", "-z", "--stdin"], nulList(taken));
    return true;
  } catch (error) {
    if (error instanceof GitFailed) return false;
    throw error;
  }
}

/** Adds every file and link below `folder` to `into`; false when one cannot be staged from here (see stageChanges). */
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

/** `paths` (none in the index) without those git ignores (`git check-ignore --no-index`; exit 1 when none is). */
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
