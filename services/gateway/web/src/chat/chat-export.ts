import { toApiError } from "../api/api-error.js";
import { chatApi } from "./chat-api.js";
import { saveBlob } from "../lib/save-blob.js";
import { showToast } from "../ui/toasts.js";

/** Saves the chat as Markdown, under the name the gateway gives it (its title); a failure is a notice. */
export async function exportChat(sessionId: string): Promise<void> {
  try {
    const { blob, fileName } = await chatApi.exportChat(sessionId);
    saveBlob(blob, fileName);
  } catch (error) {
    const failure = toApiError(error);
    showToast(`The chat could not be exported (${failure.code}): ${failure.message}`, "error");
  }
}
