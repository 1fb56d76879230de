import type { ApiClient, UploadedFile } from "../api/api-client.js";
import { toApiError } from "../api/api-error.js";
import { h } from "../lib/dom.js";
import { formatBytes } from "../lib/format.js";
import { uploadErrorText } from "./upload-error-text.js";

export interface UploadTarget {
  projectId: string;
  /** the chat whose scratch space (`{session-folder}`) takes the files; the project's files when absent */
  sessionId?: string;
  /** "" for the root of the project (or of the chat's scratch space) */
  folder: string;
}

export interface UploaderHooks {
  /** every file of a batch for `target` is done, stored or refused */
  finished(stored: UploadedFile[], target: UploadTarget): void;
  /** open a stored file (or its Markdown form) of `target` in the viewer */
  open(path: string, target: UploadTarget): void;
}

/**
 * Uploads files one after another, each its own multipart request, with a row per file: its name, a progress
 * bar for the bytes sent, and at the end what became of it (stored, converted, or why it was refused).
 * Rows stay until the user clears them, so an error is never missed.
 */
export class FileUploader {
  readonly element = h("div", { class: "uploads", hidden: true });
  private readonly list = h("ul", { class: "upload-list", "aria-label": "Uploads" });
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly api: ApiClient,
    private readonly hooks: UploaderHooks,
  ) {
    const clear = h("button", { type: "button", class: "link-button", onclick: () => this.clearDone() }, "Clear finished uploads");
    this.element.append(this.list, clear);
  }

  /** Queues `files` for `target`; a batch starts once the one before it is done. */
  upload(files: File[], target: UploadTarget): Promise<void> {
    if (files.length === 0) return this.queue;
    const rows = files.map((file) => this.row(file, target));
    this.element.hidden = false;
    this.queue = this.queue.then(() => this.run(files, rows, target));
    return this.queue;
  }

  private async run(files: File[], rows: UploadRow[], target: UploadTarget): Promise<void> {
    const stored: UploadedFile[] = [];
    for (const [index, file] of files.entries()) {
      const row = rows[index] as UploadRow;
      row.start();
      try {
        const progress = (loaded: number, total: number): void => row.progress(loaded, total);
        const uploaded =
          target.sessionId === undefined
            ? await this.api.uploadProjectFile(target.projectId, target.folder, file, progress)
            : await this.api.uploadSessionFile(target.sessionId, target.folder, file, progress);
        row.done(uploaded, (path) => this.hooks.open(path, target));
        stored.push(uploaded);
      } catch (error) {
        row.fail(uploadErrorText(toApiError(error), target.sessionId === undefined ? "project" : "chat"));
      }
    }
    this.hooks.finished(stored, target);
  }

  private row(file: File, target: UploadTarget): UploadRow {
    const row = new UploadRow(file, target.folder);
    this.list.append(row.element);
    return row;
  }

  private clearDone(): void {
    for (const item of this.list.querySelectorAll(".upload-done, .upload-failed")) item.remove();
    this.element.hidden = this.list.childElementCount === 0;
  }
}

/** One file's line in the upload list. */
class UploadRow {
  readonly element: HTMLLIElement;
  private readonly bar: HTMLProgressElement;
  private readonly status = h("span", { class: "upload-status" }, "Waiting…");

  constructor(
    private readonly file: File,
    folder: string,
  ) {
    const name = folder === "" ? file.name : `${folder}/${file.name}`;
    // a <progress> element, not a styled bar: its value is an attribute, so the page's CSP needs no inline style
    this.bar = h("progress", { class: "upload-bar", max: String(Math.max(file.size, 1)), value: "0", "aria-label": `Upload of ${name}` });
    this.element = h("li", { class: "upload-row upload-waiting" }, h("span", { class: "upload-name" }, name), h("span", { class: "upload-size" }, formatBytes(file.size)), this.bar, this.status);
  }

  start(): void {
    this.element.className = "upload-row upload-running";
    this.status.textContent = "Uploading…";
  }

  progress(loaded: number, total: number): void {
    this.bar.max = Math.max(total, 1);
    this.bar.value = loaded;
    this.status.textContent = loaded < total ? `${Math.floor((loaded / Math.max(total, 1)) * 100)} %` : "Storing…";
  }

  done(uploaded: UploadedFile, open: (path: string) => void): void {
    this.element.className = "upload-row upload-done";
    this.bar.value = this.bar.max;
    const conversion = uploaded.file.conversion;
    const markdownPath = uploaded.markdown?.path ?? (conversion && "markdown_path" in conversion ? conversion.markdown_path : undefined);
    const openLink = (path: string, label: string): HTMLButtonElement => h("button", { type: "button", class: "link-button", onclick: () => open(path) }, label);
    this.status.replaceChildren(
      uploaded.file.revision === 1 ? "Stored." : `Stored as revision ${uploaded.file.revision}.`,
      " ",
      markdownPath ? openLink(markdownPath, "Open its Markdown form") : openLink(uploaded.file.path, "Open"),
      conversion && "error" in conversion ? h("span", { class: "upload-note" }, ` Not converted to Markdown: ${conversion.error}`) : "",
    );
  }

  fail(text: string): void {
    this.element.className = "upload-row upload-failed";
    this.status.replaceChildren(h("span", { role: "alert" }, `${this.file.name}: ${text}`));
  }
}
