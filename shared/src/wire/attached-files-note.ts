import type { AttachedFile } from "./chat-attachment.js";

/**
 * The user's message as the model reads it: the text as typed, then the virtual path of each attached file
 * (and of its Markdown form) so the model reads them with `read_file` when it needs to. Nothing of the files is
 * pasted in: a long document costs tokens only when it is read. Sessions store the text and the attachments
 * apart (the user sees what they typed), and every turn composes them again with this.
 */
export function withAttachedFiles(message: string, attachments: readonly AttachedFile[] | undefined): string {
  if (!attachments || attachments.length === 0) return message;
  const lines = attachments.map(({ path, markdown_path, folder }) => {
    const root = folder === "session" ? "{session-folder}" : "{project-root}";
    return markdown_path === undefined ? `- ${root}/${path}` : `- ${root}/${path} — as Markdown: ${root}/${markdown_path}`;
  });
  return `${message}\n\nAttached files (read them with read_file when you need them):\n${lines.join("\n")}`;
}
