import type { AttachedFile, Attachment } from "@agent-orchestrator/shared/wire";
import type { ApiClient } from "../api/api-client.js";
import { byId, h } from "../lib/dom.js";
import { FileUploader } from "../files/file-uploader.js";
import { formatBytes } from "../lib/format.js";
import { pickProjectFiles } from "../files/project-file-picker.js";
import { showToast } from "../ui/toasts.js";
import { repositoryApi, type RepositoryApi } from "../repository/repository-api.js";

/** The chat the message being written goes to: its project, and its id once it has one. */
export interface ComposerChat {
  projectId: string;
  sessionId?: string | undefined;
}

/**
 * Inline files of one message together stay under this many bytes: base64 makes them a third larger, and the
 * whole JSON body must stay under the gateway's BODY_LIMIT_BYTES (256 KiB by default; docs/uploads.md
 * "Chat attachments"). A larger file is uploaded into `inputs/` first and attached by its path: the project's
 * `inputs/`, or in a project with a git repository, whose files change only with git, the chat's own scratch space
 * (docs/uploads.md "A large file for a chat").
 */
export const inlineBudgetBytes = 150 * 1024;

/** A file attached to the message being written: what goes to the API, and what the sent message shows. */
export interface PendingAttachment {
  attachment: Attachment;
  shown: AttachedFile;
  size?: number;
}

/**
 * The files attached to the message being written, as chips above the message box: from the computer (small
 * ones sent inline, larger ones uploaded with a progress bar first) or from the project (a picker of its files).
 */
export class ComposerAttachments {
  private readonly tray = byId<HTMLElement>("attachment-tray");
  private readonly chips = byId<HTMLUListElement>("attachment-chips");
  private readonly input = byId<HTMLInputElement>("attach-input");
  private readonly uploader: FileUploader;
  private items: PendingAttachment[] = [];
  private uploads = 0;

  constructor(
    private readonly api: ApiClient,
    /** the chat the message goes to; undefined while no chat is open */
    private readonly chat: () => ComposerChat | undefined,
    /** opens a file of the chat's scratch space in the chat's files panel */
    private readonly openChatFile: (path: string) => void,
    private readonly repositories: RepositoryApi = repositoryApi,
  ) {
    this.uploader = new FileUploader(api, {
      finished: (stored, target) => {
        this.uploads--;
        const folder = target.sessionId === undefined ? {} : { folder: "session" as const };
        for (const uploaded of stored) {
          const shown = { path: uploaded.file.path, ...(uploaded.markdown ? { markdown_path: uploaded.markdown.path } : {}), ...folder };
          this.add({ attachment: { path: uploaded.file.path, ...folder }, shown, size: uploaded.file.size });
        }
      },
      open: (path, target) => (target.sessionId === undefined ? this.openInFiles(path) : this.openChatFile(path)),
    });
    byId("attach-uploads").replaceWith(this.uploader.element);
    byId("attach-button").addEventListener("click", () => this.input.click());
    this.input.addEventListener("change", () => {
      void this.addFiles([...(this.input.files ?? [])]);
      this.input.value = "";
    });
    byId("attach-project-button").addEventListener("click", () => void this.pickFromProject());
  }

  /** Files still uploading: the message waits for them. */
  get uploading(): boolean {
    return this.uploads > 0;
  }

  /** The attachments for the message being sent; the chips go with it. */
  take(): PendingAttachment[] {
    const taken = this.items;
    this.items = [];
    this.render();
    // a stored upload's row has done its job once its file went with a message; a refused one stays to be read
    for (const row of this.uploader.element.querySelectorAll(".upload-done")) row.remove();
    this.uploader.element.hidden = this.uploader.element.querySelector(".upload-row") === null;
    return taken;
  }

  /** A refused message gets its attachments back, as it gets its text back. */
  restore(items: PendingAttachment[]): void {
    this.items = [...items, ...this.items];
    this.render();
  }

  clear(): void {
    this.items = [];
    this.render();
  }

  async addFiles(files: File[]): Promise<void> {
    const chat = this.chat();
    if (chat === undefined) return;
    // in a project with a git repository every file from the computer is kept in the chat's own space; a failed
    // question counts as none: a large file then goes to the project's inputs/, whose refusal shows on its row
    const inRepository = (await this.repositories.repository(chat.projectId).catch(() => null)) !== null;
    const folder = inRepository ? { folder: "session" as const } : {};
    let inline = this.items.reduce((sum, item) => sum + ("content_base64" in item.attachment ? (item.size ?? 0) : 0), 0);
    const large: File[] = [];
    for (const file of files) {
      if (inline + file.size > inlineBudgetBytes) {
        large.push(file);
        continue;
      }
      inline += file.size;
      this.add({ attachment: { name: file.name, content_base64: await base64Of(file) }, shown: { path: `inputs/${file.name}`, ...folder }, size: file.size });
    }
    if (large.length === 0) return;
    if (inRepository && chat.sessionId === undefined) {
      // the chat's greeting failed, so it has no id, nor a space yet
      showToast("A large file goes into this chat's own space, which it has once started: send a first message, then attach the file.", "error");
      return;
    }
    this.uploads++;
    void this.uploader.upload(large, { projectId: chat.projectId, ...(inRepository ? { sessionId: chat.sessionId } : {}), folder: "inputs" });
  }

  private async pickFromProject(): Promise<void> {
    const projectId = this.chat()?.projectId;
    if (projectId === undefined) return;
    const chosen = new Set(this.items.map((item) => item.shown.path));
    for (const file of await pickProjectFiles(this.api, projectId, chosen)) {
      const markdown = "conversion" in file && file.conversion && "markdown_path" in file.conversion ? file.conversion.markdown_path : undefined;
      this.add({ attachment: { path: file.path }, shown: { path: file.path, ...(markdown ? { markdown_path: markdown } : {}) }, size: file.size });
    }
  }

  private add(item: PendingAttachment): void {
    if (this.items.some((known) => known.shown.path === item.shown.path)) return;
    if (this.items.length >= 20) {
      showToast("A message takes at most 20 files.", "error");
      return;
    }
    this.items.push(item);
    this.render();
  }

  private render(): void {
    this.tray.hidden = this.items.length === 0;
    this.chips.replaceChildren(
      ...this.items.map((item, index) =>
        h(
          "li",
          { class: "attachment-chip" },
          h("span", { class: "attachment-name", title: item.shown.path }, item.shown.path.split("/").at(-1) ?? item.shown.path),
          item.size === undefined ? null : h("span", { class: "attachment-size" }, formatBytes(item.size)),
          h(
            "button",
            {
              type: "button",
              class: "chip-remove",
              "aria-label": `Remove ${item.shown.path}`,
              onclick: () => {
                this.items.splice(index, 1);
                this.render();
                byId("message-input").focus();
              },
            },
            "×",
          ),
        ),
      ),
    );
  }

  private openInFiles(path: string): void {
    const projectId = this.chat()?.projectId;
    if (projectId !== undefined) location.hash = `#/projects/${encodeURIComponent(projectId)}/files/${path.split("/").map(encodeURIComponent).join("/")}`;
  }
}

async function base64Of(file: File): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = "";
  // in slices: String.fromCharCode takes its arguments on the stack
  for (let start = 0; start < bytes.length; start += 0x8000) binary += String.fromCharCode(...bytes.subarray(start, start + 0x8000));
  return btoa(binary);
}
