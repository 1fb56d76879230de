import { z } from "zod";

/** Most files one chat message may attach. */
export const maxAttachments = 20;

/** Longest path the file messages carry (projects/upload-messages.ts). */
const maxPathLength = 1024;

/**
 * A plain file name: no folders, no `.` or `..`, no backslashes or control characters. An inline file is
 * stored as `inputs/<name>`, so a name can never reach outside that folder.
 */
export const AttachmentName = z
  .string()
  .min(1)
  .max(255)
  .refine((name) => name !== "." && name !== ".." && !/[/\\\u0000-\u001f\u007f]/.test(name), "a plain file name (no folders, `.` or `..`)");

/**
 * A file attached to a chat message: one already in the chat's project, by its
 * project-relative path (`inputs/brief.pdf`; a leading `{project-root}/` is accepted too); with `folder: "session"`,
 * one already in the chat's scratch space by its path there (`inputs/big.pdf`, uploaded with
 * `PUT /api/sessions/:id/files/<path>`); or a small file sent inline, which is uploaded to `inputs/<name>` of the
 * chat's project first (a new revision when it exists).
 */
export const Attachment = z.union([
  z.object({ path: z.string().min(1).max(maxPathLength), folder: z.literal("session").optional() }).strict(),
  z.object({ name: AttachmentName, content_base64: z.base64() }).strict(),
]);
export type Attachment = z.infer<typeof Attachment>;

export const Attachments = z.array(Attachment).max(maxAttachments);

/**
 * An attachment as the gateway resolved it: a file of the chat's project (project-relative) and, for a
 * converted document, its Markdown form beside it. The model is told both as `{project-root}/…` paths; with
 * `folder: "session"`, as `{session-folder}/…` paths: a file sent inline into a chat whose project has a git
 * repository is kept in the chat's scratch space, not written into the repository (docs/repositories.md
 * "Attachments in a chat").
 */
export const AttachedFile = z.object({
  path: z.string().min(1).max(maxPathLength),
  markdown_path: z.string().min(1).max(maxPathLength).optional(),
  folder: z.literal("session").optional(),
});
export type AttachedFile = z.infer<typeof AttachedFile>;

export const AttachedFiles = z.array(AttachedFile).max(maxAttachments);
