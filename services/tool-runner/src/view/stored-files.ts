import type { FileRevision, FileSpaceRef } from "@agent-orchestrator/shared/wire";
import { isInstallPlace } from "@agent-orchestrator/shared/bmad";
import { LRUCache } from "lru-cache";
import { isProtectedSegment } from "../paths/protected-names.js";
import { isServablePath } from "../paths/servable-name.js";
import type { FileStore } from "../store/file-store.js";
import { liveFiles } from "../store/space-index.js";

/** A file of a project or a chat's scratch space that the view lists. */
export interface StoredFile {
  file: FileRevision;
  mtimeMs: number;
}

// files kept in all: the filtered lists of many large projects, not of every space a process ever served
const maxKeptFiles = 500_000;

/**
 * The files of a space the view may list (a project's code snapshot included): live, with no protected name, one the tools could open
 * (servable-name.ts), and for a project none in BMAD's install places (`_bmad/`, `.claude/`: those are the
 * install's, docs/projects.md "Paths"). Filtered once per revision of the space's index and kept, so a call
 * over a project of 10,000 files pays for reading the index, not for checking every path again.
 */
export class StoredFiles {
  private readonly known = new LRUCache<string, { kvRevision: number; source: number; files: StoredFile[] }>({
    maxSize: maxKeptFiles,
    sizeCalculation: (value) => value.files.length + 1,
  });

  async list(store: FileStore, space: FileSpaceRef): Promise<readonly StoredFile[]> {
    const index = await store.index(space);
    const snapshot = space.kind === "project" ? await store.sources.current(space.id) : undefined;
    const source = snapshot?.info.revision ?? 0;
    const key = `${space.kind}.${space.id}`;
    const known = this.known.get(key);
    if (known && known.kvRevision === index.kvRevision && known.source === source) return known.files;
    const own = liveFiles(index);
    const files = [...own, ...[...(snapshot?.files.values() ?? [])].filter((file) => !index.files.has(file.path))]
      .filter((file) => isServablePath(file.path) && !file.path.split("/").some(isProtectedSegment) && !(space.kind === "project" && isInstallPlace(file.path)))
      .map((file) => ({ file, mtimeMs: Date.parse(file.updated_at) || 0 }));
    this.known.set(key, { kvRevision: index.kvRevision, source, files });
    return files;
  }
}
