import { AppError } from "@agent-orchestrator/shared/runtime";
import { type FileAuthor, type FileSpaceRef, type FilesImportReply, type SkippedEntry } from "@agent-orchestrator/shared/wire";
import { detectArchiveFormat, readArchive, type ArchiveLimits } from "../archive/index.js";
import type { FileChange } from "../store/file-change.js";
import type { FileStore } from "../store/file-store.js";
import type { StagedUploads } from "../store/staged-uploads.js";
import { skippedList } from "./skipped-list.js";

/** What an import needs. */
export interface ArchiveImportDeps {
  files: FileStore;
  staged: StagedUploads;
  limits: ArchiveLimits;
  /** a path a member may write (ProjectFiles.writablePath), or throws why not */
  writablePath: (space: FileSpaceRef, input: string) => Promise<string>;
}

/**
 * A zip of BMAD work begun elsewhere (an IDE project's `_bmad-output/` and `docs/`) becomes the project's own
 * files, each a new revision by the importer, in one commit: all of them or, over the project's quota, none
 * (docs/uploads.md "Export and import"). The archive is checked whole first, under the code snapshot's
 * extraction rules. An entry the project may not hold (a protected name, BMAD's install folders, a file of the
 * code snapshot) is left out and listed with the reason.
 */
export async function importArchive(deps: ArchiveImportDeps, request: { space: FileSpaceRef; staged: string; author: FileAuthor }): Promise<FilesImportReply> {
  try {
    const received = await deps.staged.receive(request.staged);
    try {
      const format = await detectArchiveFormat(received.file);
      if (!format) throw new AppError("ARCHIVE_REFUSED", "Not a zip or tar.gz archive");
      const changes: FileChange[] = [];
      const skipped: SkippedEntry[] = [];
      await readArchive(received.file, format, deps.limits, async (entry, content) => {
        let path: string;
        try {
          path = await deps.writablePath(request.space, entry.path);
        } catch (error) {
          if (!AppError.is(error)) throw error;
          skipped.push({ path: entry.path, reason: error.message });
          return;
        }
        // stored as read, so the commit below holds names, not contents
        changes.push({ path, content: { sha256: await deps.files.storeBytes(content), size: content.byteLength } });
      });
      const written = changes.length === 0 ? [] : await deps.files.apply(request.space, changes, request.author);
      return { success: true, files: written.length, bytes: written.reduce((sum, file) => sum + file.size, 0), skipped: skippedList(skipped) };
    } finally {
      await received.discard();
    }
  } finally {
    await deps.staged.remove(request.staged);
  }
}
