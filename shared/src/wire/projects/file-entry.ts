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
});
export type FileRevision = z.infer<typeof FileRevision>;

/** A file as listed to clients: its latest revision, and whether it is an installed (read-only) BMAD file. */
export const FileListing = FileRevision.omit({ deleted: true }).extend({ read_only: z.boolean() });
export type FileListing = z.infer<typeof FileListing>;
