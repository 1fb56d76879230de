import { toApiError } from "../api/api-error.js";
import { diffLinesList } from "../files/diff-lines-list.js";
import { byId, h } from "../lib/dom.js";
import { confirmAction } from "../ui/confirm-dialog.js";
import { errorCallout } from "../ui/error-callout.js";
import { openModal } from "../ui/modal-dialog.js";
import { formatHashRoute } from "../lib/hash-route.js";
import { showToast } from "../ui/toasts.js";
import { commitList } from "./commit-list.js";
import { patchFiles } from "./patch-files.js";
import { repositoryApi, type ChatChanges, type RepositoryApi } from "./repository-api.js";

/** The open chat as the Changes button acts on it. */
export interface ChangesChat {
  sessionId: string;
  projectId: string;
  /** the branch of the project's repository it works on */
  branch: string;
  /** an editor or the owner: may discard its uncommitted changes */
  writable: boolean;
}

/**
 * The chat header's "Changes" button, for a chat in a project with a git repository: a dialog with what the chat's
 * work changed since it started (docs/repositories.md "A chat's work"): its commits, the files with their added and
 * removed lines (uncommitted ones marked), each file's diff; and for an editor or the owner, Discard uncommitted
 * changes (the API refuses it while the chat's turn runs).
 */
export class ChatChangesButton {
  private readonly button = byId<HTMLButtonElement>("chat-changes");
  private chat: ChangesChat | undefined;

  constructor(private readonly api: RepositoryApi = repositoryApi) {
    this.button.addEventListener("click", () => void this.open());
  }

  /** The open chat, or undefined when none or when its project has no repository. */
  show(chat: ChangesChat | undefined): void {
    this.chat = chat;
    this.button.hidden = chat === undefined;
    if (chat) this.button.title = `What this chat changed on ${chat.branch}`;
  }

  private async open(): Promise<void> {
    const chat = this.chat;
    if (!chat) return;
    const body = h("div", { class: "chat-changes", "aria-live": "polite" }, h("p", { class: "muted" }, "Loading…"));
    // the branch's files as the chat's next turn sees them (docs/repositories.md "The files API on a repository")
    const files = formatHashRoute({ view: "files", projectId: chat.projectId, branch: chat.branch });
    const browse = h("a", { class: "button button-quiet", href: files, id: "browse-branch-files" }, "Browse its branch's files");
    openModal(`Changes on ${chat.branch}`, (dialog) => {
      browse.addEventListener("click", () => dialog.close());
      return [body, h("div", { class: "dialog-actions" }, browse, h("button", { class: "button", type: "button", onclick: () => dialog.close() }, "Close"))];
    }).classList.add(
      "repository-dialog",
    );
    try {
      const changes = await this.api.changes(chat.sessionId);
      body.replaceChildren(...(changes ? this.render(chat, changes, body) : [h("p", {}, "This chat's project has no repository.")]));
    } catch (error) {
      body.replaceChildren(errorCallout(toApiError(error)));
    }
  }

  private render(chat: ChangesChat, changes: ChatChanges, body: HTMLElement): Node[] {
    const uncommitted = changes.files.filter((file) => file.uncommitted).length;
    const summary = h(
      "p",
      { class: "changes-summary" },
      `Since ${changes.base.slice(0, 10)}: ${changes.commits.length}${changes.commits_truncated ? "+" : ""} commit${changes.commits.length === 1 ? "" : "s"}, `,
      `${changes.files.length}${changes.files_truncated ? "+" : ""} file${changes.files.length === 1 ? "" : "s"} changed`,
      changes.clean ? ", nothing uncommitted." : `, ${uncommitted} with uncommitted changes.`,
    );
    const discard =
      chat.writable && !changes.clean
        ? h("button", { class: "button button-danger", type: "button", onclick: () => void this.discard(chat, body) }, "Discard uncommitted changes")
        : null;
    const diffs = changes.patch === null ? [] : patchFiles(changes.patch);
    const files = changes.files.map((file) => {
      const diff = diffs.find((one) => one.path === file.path);
      const marks = `${file.change}${file.uncommitted ? ", uncommitted" : ""}${file.binary ? ", binary" : ` +${file.additions} −${file.deletions}`}`;
      return h(
        "details",
        { class: "changed-file" },
        h("summary", {}, h("code", {}, file.path), ` (${marks})`),
        diff && !diff.binary ? diffLinesList({ rows: diff.rows, added: diff.added, removed: diff.removed }, `Changes of ${file.path}`) : h("p", { class: "muted" }, file.binary ? "A binary file." : "Too large to show here."),
      );
    });
    const commits = changes.commits.length > 0 ? commitList(changes.commits, "Commits since the chat started") : null;
    return [summary, ...(discard ? [discard] : []), ...(commits ? [commits] : []), ...files];
  }

  private async discard(chat: ChangesChat, body: HTMLElement): Promise<void> {
    const sure = await confirmAction({
      title: "Discard uncommitted changes?",
      text: `The files of ${chat.branch} go back to its last commit; files the chat added and did not commit are removed. Commits stay.`,
      confirm: "Discard",
    });
    if (!sure) return;
    try {
      const changes = await this.api.discard(chat.sessionId);
      body.replaceChildren(...this.render(chat, changes, body));
      showToast("The chat's uncommitted changes were discarded.");
    } catch (error) {
      const failure = toApiError(error);
      showToast(`The changes could not be discarded (${failure.code}): ${failure.message}`, "error");
    }
  }
}
