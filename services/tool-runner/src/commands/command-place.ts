/** Where the working tree is inside every command's sandbox: the command starts there. */
export const insideTree = "/project";
/** Where a working tree's `.git` kept apart from it is inside, and the repository's shared objects. */
const insideGitDirectory = "/git";
const insideObjects = "/git-objects";

/**
 * The host folders a command works in: a working tree with its `.git` inside it, or a repository's checkout
 * (docs/repositories.md "A tool-runner's cache"), whose `directory/.git` is a `gitdir:` file naming `gitDirectory`
 * and whose `gitDirectory/objects/info/alternates` names `objectDirectory`.
 */
export interface CommandPlace {
  /** the working tree, read-write at /project */
  directory: string;
  /** its `.git` folder when apart from it, read-write at /git */
  gitDirectory?: string | undefined;
  /** the repository's shared objects, read-only at /git-objects (with `gitDirectory` only) */
  objectDirectory?: string | undefined;
}

/** How the sandbox holds a place: its folders where the sandbox sees them, and the files that point git to them. */
export interface PlaceLayout {
  folders: Array<{ host: string; inside: string; writable: boolean }>;
  /** small read-only files bound over the place's own, naming the folders by their paths inside */
  files: Array<{ inside: string; content: string }>;
}

/**
 * The place as the sandbox binds it. A checkout's `.git` file and alternates name host folders (relatively, from
 * where they lie on the host), so the sandbox gets its own read-only copies of those two files, naming /git and
 * /git-objects: git inside finds its repository, the command never reads a host path, and it cannot point git
 * anywhere else (it may still change everything else in /git, which the host reads only as data).
 */
export function placeLayout(place: CommandPlace): PlaceLayout {
  const folders = [{ host: place.directory, inside: insideTree, writable: true }];
  if (place.gitDirectory === undefined) return { folders, files: [] };
  folders.push({ host: place.gitDirectory, inside: insideGitDirectory, writable: true });
  const files = [{ inside: `${insideTree}/.git`, content: `gitdir: ${insideGitDirectory}\n` }];
  if (place.objectDirectory !== undefined) {
    folders.push({ host: place.objectDirectory, inside: insideObjects, writable: false });
    files.push({ inside: `${insideGitDirectory}/objects/info/alternates`, content: `${insideObjects}\n` });
  }
  return { folders, files };
}
