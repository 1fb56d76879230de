import { z } from "zod";

/** Who wrote a revision: the user, and when a chat's tool wrote it, the chat, its agent and the tool call. */
export const FileAuthor = z.object({
  user: z.string(),
  session_id: z.string().optional(),
  agent_id: z.string().optional(),
  tool_call_id: z.string().optional(),
});
export type FileAuthor = z.infer<typeof FileAuthor>;

/**
 * What became of an uploaded document (docs/uploads.md "Documents become Markdown"): the path of its
 * Markdown form beside it, or why it could not be converted (the original is kept either way).
 */
export const FileConversion = z.union([z.object({ markdown_path: z.string() }), z.object({ error: z.string() })]);
export type FileConversion = z.infer<typeof FileConversion>;

/**
 * One revision of one file of a project or a chat's scratch space, as the file index keeps it
 * (docs/projects.md "Storage"): the content is the object named by `sha256` in the contents store.
 * A deletion is a revision too (`deleted: true`, size 0, no content).
 */
export const FileRevision = z.object({
  path: z.string(),
  revision: z.number().int().positive(),
  size: z.number().int().nonnegative(),
  sha256: z.string(),
  author: FileAuthor,
  updated_at: z.string(),
  deleted: z.boolean().optional(),
  /** on an uploaded PDF, DOCX or HTML file: its Markdown form, or why there is none */
  conversion: FileConversion.optional(),
  /** on a Markdown form: the path of the document it was converted from */
  converted_from: z.string().optional(),
});
export type FileRevision = z.infer<typeof FileRevision>;

/** A file as listed to clients: its latest revision, and whether it is read-only (a file of the code snapshot). */
export const FileListing = FileRevision.omit({ deleted: true }).extend({ read_only: z.boolean() });
export type FileListing = z.infer<typeof FileListing>;
