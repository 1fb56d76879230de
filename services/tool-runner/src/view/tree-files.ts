import { isInstallPlace } from "@agent-orchestrator/shared/bmad";
import { LRUCache } from "lru-cache";
import { isProtectedSegment } from "../paths/protected-names.js";
import { isServablePath } from "../paths/servable-name.js";
import type { AttachedRepository, TreeFile } from "../repository/index.js";

// files kept in all: the filtered lists of a few large working trees
const maxKeptFiles = 500_000;

/**
 * The files of a working tree the view may list (docs/repositories.md): regular files only (a symbolic link or a
 * submodule is never followed, RELIABILITY case 91), with no protected name, names the tools can open, none in
 * BMAD's install places (the install's files are shown there). Filtered once per files tree, which names one
 * content for good, so a call over 50,000 files pays for the list once per change.
 */
export class TreeFiles {
  private readonly known = new LRUCache<string, readonly TreeFile[]>({ maxSize: maxKeptFiles, sizeCalculation: (files) => files.length + 1 });

  /** The files of `view.state.files` (a working tree's, or a commit's root tree). */
  async list(view: { repository: AttachedRepository; state: { files: string } }): Promise<readonly TreeFile[]> {
    const root = view.state.files;
    const known = this.known.get(root);
    if (known) return known;
    const files = (await view.repository.reader.files(root)).filter(
      (file) => (file.kind === "file" || file.kind === "executable") && isServablePath(file.path) && !file.path.split("/").some(isProtectedSegment) && !isInstallPlace(file.path),
    );
    this.known.set(root, files);
    return files;
  }
}
