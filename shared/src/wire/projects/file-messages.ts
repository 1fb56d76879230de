import { z } from "zod";
import { ErrorReply } from "../error-code.js";
import { subjectTokenPattern } from "../subjects.js";
import { FileAuthor, FileListing, FileRevision } from "./file-entry.js";

/**
 * A file space of the store: a project's own files, or one chat's scratch space (`{session-folder}`).
 * The caller (gateway or orchestrator) has checked the user's access before it asks the tool-runner.
 */
export const FileSpaceRef = z.object({ kind: z.enum(["project", "session"]), id: z.string().regex(subjectTokenPattern) });
export type FileSpaceRef = z.infer<typeof FileSpaceRef>;

const filePath = z.string().min(1).max(1024);

/** gateway → tool-runner on `project.files.list`: a space's files (latest revisions), and for a project the installed BMAD files too when asked. */
export const FilesListRequest = z.object({
  space: FileSpaceRef,
  prefix: z.string().max(1024).optional(),
  /** a project's code snapshot files too (read_only), as many as fit one reply */
  source: z.boolean().optional(),
});
export const FilesListReply = z.union([
  z.object({
    success: z.literal(true),
    files: z.array(FileListing),
    /** names left out because the tools could not open them (docs/security.md case 142) */
    unservable_names: z.number().int().nonnegative(),
    bytes: z.number().int().nonnegative(),
    /** code snapshot files were left out to fit the reply */
    truncated: z.boolean().optional(),
  }),
  ErrorReply,
]);
export type FilesListReply = z.infer<typeof FilesListReply>;

/** gateway → tool-runner on `project.files.read`: the latest revision of one file, or revision `revision`. */
export const FilesReadRequest = z.object({ space: FileSpaceRef, path: filePath, revision: z.number().int().positive().optional() });
export const FilesReadReply = z.union([
  z.object({ success: z.literal(true), file: FileRevision, content: z.string(), truncated: z.boolean() }),
  ErrorReply,
]);
export type FilesReadReply = z.infer<typeof FilesReadReply>;

/** gateway → tool-runner on `project.files.revisions`: every kept revision of one file, newest first. */
export const FilesRevisionsRequest = z.object({ space: FileSpaceRef, path: filePath });
export const FilesRevisionsReply = z.union([z.object({ success: z.literal(true), revisions: z.array(FileRevision) }), ErrorReply]);
export type FilesRevisionsReply = z.infer<typeof FilesRevisionsReply>;

/** gateway → tool-runner on `project.files.write` / `project.files.delete`: a member's own change, as a new revision. */
export const FilesWriteRequest = z.object({ space: FileSpaceRef, path: filePath, content: z.string(), author: FileAuthor });
export const FilesDeleteRequest = z.object({ space: FileSpaceRef, path: filePath, author: FileAuthor });
export const FilesChangeReply = z.union([z.object({ success: z.literal(true), file: FileRevision }), ErrorReply]);
export type FilesChangeReply = z.infer<typeof FilesChangeReply>;

/** orchestrator → tool-runner on `project.files.purge`: forget a space whole (a deleted project or chat). */
export const FilesPurgeRequest = z.object({ space: FileSpaceRef });
export const FilesPurgeReply = z.union([z.object({ success: z.literal(true), files: z.number().int().nonnegative() }), ErrorReply]);
export type FilesPurgeReply = z.infer<typeof FilesPurgeReply>;

/** gateway → tool-runner on `project.files.restore`: make revision `revision` of a file its latest again, as a new revision. */
export const FilesRestoreRequest = z.object({ space: FileSpaceRef, path: filePath, revision: z.number().int().positive(), author: FileAuthor });
