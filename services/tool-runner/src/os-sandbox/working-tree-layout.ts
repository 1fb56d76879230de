/**
 * The host folders of a working tree a sandbox works in: a plain one with its `.git` inside it, or a repository's
 * checkout (docs/repositories.md "A tool-runner's cache"), whose `directory/.git` is a `gitdir:` file naming
 * `gitDirectory` and whose `gitDirectory/objects/info/alternates` names `objectDirectory`.
 */
export interface WorkingTreePlace {
  /** the working tree, read-write */
  directory: string;
  /** its `.git` folder when apart from it, read-write */
  gitDirectory?: string | undefined;
  /** the repository's shared objects, read-only (with `gitDirectory` only) */
  objectDirectory?: string | undefined;
}

/** Where a sandbox shows the three folders (`run_command`: /project, /git, /git-objects; `run_script`: below /sandbox). */
export interface WorkingTreeInside {
  tree: string;
  git: string;
  objects: string;
}

/** How the sandbox holds a place: its folders where the sandbox sees them, and the files that point git to them. */
export interface PlaceLayout {
  folders: Array<{ host: string; inside: string; writable: boolean }>;
  /** small read-only files bound over the place's own, naming the folders by their paths inside */
  files: Array<{ inside: string; content: string }>;
}

/**
 * The place as a sandbox binds it. A checkout's `.git` file and alternates name host folders (relatively, from
 * where they lie on the host), so the sandbox gets its own read-only copies of those two files, naming the folders
 * inside: git inside finds its repository, the sandbox never reads a host path, and it cannot point git anywhere
 * else (it may still change everything else in the `.git` folder, which the host reads only as data).
 */
export function workingTreeLayout(place: WorkingTreePlace, inside: WorkingTreeInside): PlaceLayout {
  const folders = [{ host: place.directory, inside: inside.tree, writable: true }];
  if (place.gitDirectory === undefined) return { folders, files: [] };
  folders.push({ host: place.gitDirectory, inside: inside.git, writable: true });
  const files = [{ inside: `${inside.tree}/.git`, content: `gitdir: ${inside.git}\n` }];
  if (place.objectDirectory !== undefined) {
    folders.push({ host: place.objectDirectory, inside: inside.objects, writable: false });
    files.push({ inside: `${inside.git}/objects/info/alternates`, content: `${inside.objects}\n` });
  }
  return { folders, files };
}
