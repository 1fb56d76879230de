import { AppError } from "@agent-orchestrator/shared/runtime";
import { type FileRevision } from "@agent-orchestrator/shared/wire";

/**
 * A written file whose name is a folder of the space (`dir` while `dir/x.md` lives), or that lies under a
 * file (`file/x.md` while `file` lives), judged on the space as it would be after the batch: a space is a
 * tree, as on disk, so every listing, read and script materialisation sees one thing per name.
 */
export function pathClash(files: ReadonlyMap<string, FileRevision>, written: readonly FileRevision[]): AppError | undefined {
  const live = (path: string) => {
    const file = files.get(path);
    return file !== undefined && file.deleted !== true;
  };
  let folders: Set<string> | undefined;
  for (const revision of written) {
    if (revision.deleted === true) continue;
    const segments = revision.path.split("/");
    for (let depth = 1; depth < segments.length; depth += 1) {
      const parent = segments.slice(0, depth).join("/");
      if (live(parent)) return new AppError("INVALID_PATH", `Not a folder: ${parent} is a file`);
    }
    if (!folders) {
      folders = new Set();
      for (const file of files.values()) {
        if (file.deleted === true) continue;
        for (let end = file.path.indexOf("/"); end !== -1; end = file.path.indexOf("/", end + 1)) folders.add(file.path.slice(0, end));
      }
    }
    if (folders.has(revision.path)) return new AppError("NOT_A_FILE", `Not a file: ${revision.path} is a folder`);
  }
  return undefined;
}
