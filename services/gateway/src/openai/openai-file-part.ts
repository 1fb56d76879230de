import { AppError } from "@agent-orchestrator/shared/runtime";
import { Attachment, AttachmentName, type OpenAiFilePart } from "@agent-orchestrator/shared/wire";

/** `data:<type>[;params];base64,<payload>`: the only data URL a file's bytes may come as. */
const base64DataUrl = /^data:[^,]*;base64,/i;

/**
 * A `/v1` file part as an attachment of the turn (docs/openai-api.md "Files"): `file_data` (a base64 data URL
 * or plain base64) is a small file stored as `inputs/<filename>` of the chat's project; `file_id` is the path
 * of a file already in the project, since this server has no Files API of its own to issue ids from.
 */
export function fileAttachment(part: OpenAiFilePart, where: string): Attachment {
  const { filename, file_data, file_id } = part.file;
  if (file_id !== undefined) return { path: file_id };
  const name = AttachmentName.safeParse(filename);
  if (!name.success) throw new AppError("VALIDATION_ERROR", `${where}.file.filename: ${name.error.issues[0]?.message ?? "invalid"}`);
  const data = file_data ?? "";
  const parsed = Attachment.safeParse({ name: name.data, content_base64: data.replace(base64DataUrl, "") });
  if (!parsed.success || (data.startsWith("data:") && !base64DataUrl.test(data))) {
    throw new AppError("VALIDATION_ERROR", `${where}.file.file_data: give base64, plain or as a data URL (data:<type>;base64,…)`);
  }
  return parsed.data;
}
