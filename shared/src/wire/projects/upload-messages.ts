import { z } from "zod";
import { ErrorReply } from "../error-code.js";
import { subjectTokenPattern } from "../subjects.js";
import { FileAuthor, FileListing, FileRevision } from "./file-entry.js";
import { FileSpaceRef } from "./file-messages.js";

/**
 * What the gateway and the tool-runner say about bytes a client brings in (docs/uploads.md). The gateway
 * streams a request body into the uploads Object Store under a fresh name (`staged`); the tool-runner takes it
 * from there, checks it, stores it by content and removes the staged object. Big bodies never travel in a
 * message.
 */
const filePath = z.string().min(1).max(1024);
/** the name of a staged upload: a token the gateway made, never a client's */
const StagedName = z.string().regex(subjectTokenPattern);

/** gateway → tool-runner on `project.files.upload`: the staged bytes become the next revision of `path`. */
export const FilesUploadRequest = z.object({ space: FileSpaceRef, path: filePath, staged: StagedName, author: FileAuthor });
export const FilesUploadReply = z.union([
  /** `markdown`: the revision of the Markdown form written beside a converted document */
  z.object({ success: z.literal(true), file: FileRevision, markdown: FileRevision.optional() }),
  ErrorReply,
]);
export type FilesUploadReply = z.infer<typeof FilesUploadReply>;

/**
 * gateway → tool-runner on `project.files.stat`: the listing of each of `paths` (own or code-snapshot files),
 * null where none. With `for_write`, each path must also be one a member may write (an upload's check before
 * its body is read): the first that is not is the error.
 */
export const FilesStatRequest = z.object({ space: FileSpaceRef, paths: z.array(filePath).min(1).max(100), for_write: z.boolean().optional() });
export const FilesStatReply = z.union([z.object({ success: z.literal(true), files: z.array(FileListing.nullable()) }), ErrorReply]);
export type FilesStatReply = z.infer<typeof FilesStatReply>;

/** An archive entry left out of a code snapshot or an import, and why (shown to the user). */
export const SkippedEntry = z.object({ path: z.string(), reason: z.string() });
export type SkippedEntry = z.infer<typeof SkippedEntry>;

/** gateway → tool-runner on `project.files.import`: the files of a staged zip become new revisions of the project's own files. */
export const FilesImportRequest = z.object({ space: FileSpaceRef, staged: StagedName, author: FileAuthor });
export const FilesImportReply = z.union([
  z.object({
    success: z.literal(true),
    files: z.number().int().nonnegative(),
    bytes: z.number().int().nonnegative(),
    skipped: z.array(SkippedEntry),
  }),
  ErrorReply,
]);
export type FilesImportReply = z.infer<typeof FilesImportReply>;

/**
 * The files of a code snapshot, stored as one object in the contents store (named by its sha256, like any
 * content): a code base may have far more files than a KV value can list.
 */
export const SourceManifest = z.object({ files: z.array(z.object({ path: z.string(), size: z.number().int().nonnegative(), sha256: z.string() })) });
export type SourceManifest = z.infer<typeof SourceManifest>;

/** A project's code snapshot as a whole: one revision of it, replaced whole by the next upload. */
export const SourceSnapshotInfo = z.object({
  revision: z.number().int().positive(),
  /** the sha256 of its SourceManifest in the contents store */
  manifest: z.string(),
  files: z.number().int().nonnegative(),
  bytes: z.number().int().nonnegative(),
  uploaded_by: z.string(),
  uploaded_at: z.string(),
});
export type SourceSnapshotInfo = z.infer<typeof SourceSnapshotInfo>;

/** gateway → tool-runner on `project.files.source`: a staged zip or tar.gz becomes the project's code snapshot. */
export const SourcePutRequest = z.object({
  project_id: z.string().regex(subjectTokenPattern),
  staged: StagedName,
  /** leading path segments to drop from every entry, as `tar --strip-components` (a GitHub archive's `repo-main/`) */
  strip: z.number().int().min(0).max(8),
  author: FileAuthor,
});
export const SourcePutReply = z.union([z.object({ success: z.literal(true), source: SourceSnapshotInfo, skipped: z.array(SkippedEntry) }), ErrorReply]);
export type SourcePutReply = z.infer<typeof SourcePutReply>;

/** gateway → tool-runner on `project.files.source_info` / `project.files.source_delete`: the snapshot's summary; remove it. */
export const SourceRequest = z.object({ project_id: z.string().regex(subjectTokenPattern) });
export const SourceInfoReply = z.union([z.object({ success: z.literal(true), source: SourceSnapshotInfo.nullable() }), ErrorReply]);
export type SourceInfoReply = z.infer<typeof SourceInfoReply>;
