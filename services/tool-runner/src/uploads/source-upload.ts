import { isInstallPlace } from "@agent-orchestrator/shared/bmad";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { type FileAuthor, type SkippedEntry, type SourceManifest, type SourcePutReply } from "@agent-orchestrator/shared/wire";
import { detectArchiveFormat, readArchive, type ArchiveLimits } from "../archive/index.js";
import { findProtectedSegment } from "../paths/protected-names.js";
import type { FileStore } from "../store/file-store.js";
import { liveFiles } from "../store/space-index.js";
import { checkedSpacePath } from "../store/space-path.js";
import type { StagedUploads } from "../store/staged-uploads.js";
import { skippedList } from "./skipped-list.js";

/** What taking a code snapshot needs. */
export interface SourceUploadDeps {
  files: FileStore;
  staged: StagedUploads;
  limits: ArchiveLimits;
  now: () => Date;
}

/**
 * A zip or tar.gz of a code base becomes the project's read-only code snapshot (docs/uploads.md "A code
 * snapshot"), replacing the one before whole. The archive is checked whole before anything is stored
 * (archive/read-archive.ts: no entry that leaves the tree, no links or devices, within the size, count and
 * ratio limits); refused, it leaves nothing behind. Left out, and listed with the reason: protected names
 * (`.env`, keys, `.git`: never stored), BMAD's own places (`_bmad/`, `_bmad-output/`, the tool folders: the
 * install's and the project's), and paths where the project has its own file, so a path is never both.
 */
export async function putSource(deps: SourceUploadDeps, request: { project_id: string; staged: string; strip: number; author: FileAuthor }): Promise<SourcePutReply> {
  try {
    const received = await deps.staged.receive(request.staged);
    try {
      const format = await detectArchiveFormat(received.file);
      if (!format) throw new AppError("ARCHIVE_REFUSED", "Not a zip or tar.gz archive");
      const own = liveFiles(await deps.files.index({ kind: "project", id: request.project_id }));
      const ownFiles = new Set(own.map((file) => file.path));
      const ownFolders = new Set(own.flatMap((file) => parentsOf(file.path)));
      const skipped: SkippedEntry[] = [];
      const manifest: SourceManifest = { files: [] };
      await readArchive(
        received.file,
        format,
        deps.limits,
        async (entry, content) => {
          const why = skipReason(entry.path, ownFiles, ownFolders);
          if (why !== undefined) {
            skipped.push({ path: entry.path, reason: why });
            return;
          }
          manifest.files.push({ path: entry.path, size: entry.size, sha256: await deps.files.storeBytes(content) });
        },
        { strip: request.strip },
      );
      const source = await deps.files.sources.replace(request.project_id, manifest, request.author.user, deps.now());
      return { success: true, source, skipped: skippedList(skipped) };
    } finally {
      await received.discard();
    }
  } finally {
    await deps.staged.remove(request.staged);
  }
}

function skipReason(path: string, ownFiles: ReadonlySet<string>, ownFolders: ReadonlySet<string>): string | undefined {
  if (findProtectedSegment(path) !== undefined) return "a protected name (secrets, keys, .git): never stored";
  try {
    // a name the tools could not open (a reserved device name, a trailing dot or space) is no use stored
    checkedSpacePath(path);
  } catch (error) {
    if (!AppError.is(error)) throw error;
    return error.message;
  }
  if (path === "_bmad-output" || path.startsWith("_bmad-output/")) return "BMAD's output folder: bring it in with the project import";
  if (isInstallPlace(path)) return "BMAD's install folders come from the shared BMAD install";
  if (ownFiles.has(path) || ownFolders.has(path)) return "the project has its own file here";
  if (parentsOf(path).some((parent) => ownFiles.has(parent))) return "the project has its own file where this folder would be";
  return undefined;
}

/** `a/b/c.md` → `a`, `a/b`. */
function parentsOf(path: string): string[] {
  const parents: string[] = [];
  for (let end = path.indexOf("/"); end !== -1; end = path.indexOf("/", end + 1)) parents.push(path.slice(0, end));
  return parents;
}
