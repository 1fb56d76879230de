import type { ApiClient } from "../api/api-client.js";
import { toApiError } from "../api/api-error.js";
import { confirmAction } from "../ui/confirm-dialog.js";
import { byId } from "../lib/dom.js";
import { formatHashRoute } from "../lib/hash-route.js";
import { askForText } from "../ui/text-dialog.js";
import { showToast } from "../ui/toasts.js";

/** The open chat as its header's buttons act on it. */
export interface OpenChat {
  sessionId: string;
  projectId: string;
  title: string;
}

/** The open chat's Rename and Delete buttons in its header. */
export class ChatActions {
  private readonly renameButton = byId<HTMLButtonElement>("chat-rename");
  private readonly deleteButton = byId<HTMLButtonElement>("chat-delete");

  constructor(
    private readonly api: ApiClient,
    private readonly current: () => OpenChat | undefined,
    private readonly refresh: () => Promise<void>,
  ) {
    this.renameButton.addEventListener("click", () => void this.rename());
    this.deleteButton.addEventListener("click", () => void this.remove());
  }

  /** Rename and delete are for a chat that exists, in a project the caller may change; the API decides the rest. */
  show(shown: boolean): void {
    this.renameButton.hidden = !shown;
    this.deleteButton.hidden = !shown;
  }

  private async rename(): Promise<void> {
    const chat = this.current();
    if (!chat) return;
    const title = await askForText({ title: "Rename this chat", label: "Title", value: chat.title, confirm: "Rename" });
    if (title === undefined) return;
    try {
      await this.api.renameSession(chat.sessionId, title);
      await this.refresh();
    } catch (error) {
      const failure = toApiError(error);
      showToast(`The chat could not be renamed (${failure.code}): ${failure.message}`, "error");
    }
  }

  private async remove(): Promise<void> {
    const chat = this.current();
    if (!chat) return;
    const title = chat.title || "this chat";
    if (!(await confirmAction({ title: "Delete this chat?", text: `“${title}” and its conversation will be deleted. What it wrote into the project stays.`, confirm: "Delete chat" }))) return;
    try {
      await this.api.deleteSession(chat.sessionId);
      showToast("The chat was deleted.");
      await this.refresh();
      location.hash = formatHashRoute({ view: "project", projectId: chat.projectId });
    } catch (error) {
      const failure = toApiError(error);
      showToast(`The chat could not be deleted (${failure.code}): ${failure.message}`, "error");
    }
  }
}
