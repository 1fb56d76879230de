import type { BranchPoint, FileListing, FileRevision } from "@agent-orchestrator/shared/wire";
import type { ApiClient, ListedFile } from "../api/api-client.js";
import { toApiError } from "../api/api-error.js";
import { h } from "../lib/dom.js";
import { errorCallout } from "../ui/error-callout.js";
import { fileContentView } from "./file-content-view.js";
import { FileHistoryView } from "./file-history-view.js";
import { fileKind, type FileKind } from "./file-kind.js";
import { formatBytes, formatRelativeTime } from "../lib/format.js";
import { saveBlob } from "../lib/save-blob.js";

export interface FilePaneHooks {
  open(path: string): void;
  restored(file: FileRevision): void;
}

const kindNames: Partial<Record<FileKind, string>> = { document: "document", binary: "binary file" };

/**
 * One open file of the project: what it is (revision, size, author, read-only), its content or its history,
 * a download, and for an uploaded document the way to its Markdown form or why there is none. A file of a branch of
 * the project's repository (`shown`) is read there, read-only, with no history here (its branch's commits are).
 */
export class FilePane {
  private generation = 0;

  constructor(
    private readonly title: HTMLElement,
    private readonly actions: HTMLElement,
    private readonly body: HTMLElement,
    private readonly api: ApiClient,
    private readonly hooks: FilePaneHooks,
  ) {}

  clear(message: string): void {
    this.generation++;
    this.title.textContent = "No file open";
    this.actions.replaceChildren();
    this.body.replaceChildren(h("p", { class: "empty" }, message));
  }

  /**
   * Shows `listed` (undefined when the list does not have `path`: the read says why), its content or its history;
   * `shown`: the branch of the project's repository the list is of.
   */
  async show(projectId: string, path: string, listed: ListedFile | undefined, writable: boolean, mode: "content" | "history", shown?: BranchPoint): Promise<void> {
    const generation = ++this.generation;
    const kind = fileKind(path);
    const branch = shown?.branch;
    // a stored file's revision: a repository's files have none
    const file = listed && "revision" in listed ? listed : undefined;
    this.title.textContent = path;
    const modeButton = (name: "content" | "history", label: string): HTMLButtonElement =>
      h("button", { type: "button", class: "button button-quiet button-small", "aria-pressed": String(mode === name), onclick: () => void this.show(projectId, path, listed, writable, name, shown) }, label);
    const download = h("button", { type: "button", class: "button button-quiet button-small", onclick: () => void this.download(projectId, path, branch) }, "Download");
    this.actions.replaceChildren(
      file ? this.meta(file) : listed && shown ? this.branchMeta(listed.size, shown) : "",
      h("div", { class: "pane-buttons", role: "group", "aria-label": "File" }, modeButton("content", "Content"), file ? modeButton("history", "History") : null, download),
    );
    if (mode === "history" && file) {
      const text = kind !== "document" && kind !== "binary";
      this.body.replaceChildren(new FileHistoryView(this.api, { projectId, file, text, writable: writable && !file.read_only, restored: (restored) => this.hooks.restored(restored) }).element);
      return;
    }
    const notes = file ? this.conversionNotes(file) : [];
    if (kind === "document" || kind === "binary") {
      this.body.replaceChildren(...notes, this.binaryNotice(projectId, path, kind, listed?.size, branch));
      return;
    }
    this.body.replaceChildren(...notes, h("p", { class: "muted" }, "Loading…"));
    try {
      const read = await this.api.readProjectFile(projectId, path, { branch });
      if (generation !== this.generation) return;
      const converted = "converted_from" in read.file && read.file.converted_from !== undefined;
      this.body.replaceChildren(...notes, read.truncated ? h("p", { class: "muted" }, "Only the start of this large file is shown; download it for the rest.") : "", fileContentView(kind, path, read.content, this.hooks.open, converted));
    } catch (error) {
      if (generation !== this.generation) return;
      const failure = toApiError(error);
      // a file the name did not give away as binary: the API says so, and it is offered as a download
      this.body.replaceChildren(...notes, failure.code === "BINARY_FILE" ? this.binaryNotice(projectId, path, "binary", listed?.size, branch) : errorCallout(failure));
    }
  }

  private meta(file: FileListing): HTMLElement {
    const { author } = file;
    const by = [author.user, author.agent_id ? `agent ${author.agent_id}` : undefined].filter(Boolean).join(", ");
    return h(
      "p",
      { class: "file-meta pane-meta" },
      `Revision ${file.revision} · ${formatBytes(file.size)} · ${by} · `,
      h("time", { datetime: file.updated_at, title: new Date(file.updated_at).toLocaleString() }, formatRelativeTime(file.updated_at)),
      file.read_only ? h("span", { class: "badge" }, "read-only: code snapshot") : null,
    );
  }

  /** A repository's file: its size, and the branch and commit it is read from. */
  private branchMeta(size: number, shown: BranchPoint): HTMLElement {
    const state = shown.working_tree ? "its working tree, uncommitted changes included" : `commit ${shown.commit.slice(0, 7)}`;
    return h("p", { class: "file-meta pane-meta" }, `${formatBytes(size)} · on ${shown.branch}, ${state} `, h("span", { class: "badge" }, "read-only: repository"));
  }

  /** For a document: where its Markdown form is, or why there is none; for a Markdown form: what it came from. */
  private conversionNotes(file: FileListing): HTMLElement[] {
    const notes: HTMLElement[] = [];
    const link = (path: string, label: string): HTMLButtonElement => h("button", { type: "button", class: "link-button", onclick: () => this.hooks.open(path) }, label);
    if (file.conversion && "markdown_path" in file.conversion) notes.push(h("p", { class: "callout callout-info" }, "Converted to Markdown: ", link(file.conversion.markdown_path, file.conversion.markdown_path)));
    if (file.conversion && "error" in file.conversion) notes.push(h("div", { class: "callout callout-warn", role: "note" }, h("strong", {}, "Not converted to Markdown. "), file.conversion.error));
    if (file.converted_from) notes.push(h("p", { class: "callout callout-info" }, "Converted from ", link(file.converted_from, file.converted_from)));
    return notes;
  }

  private binaryNotice(projectId: string, path: string, kind: FileKind, bytes: number | undefined, branch: string | undefined): HTMLElement {
    const size = bytes === undefined ? "" : `, ${formatBytes(bytes)}`;
    return h(
      "div",
      { class: "binary-notice" },
      h("p", {}, `This ${kindNames[kind] ?? "file"}${size} is not shown here.`),
      h("button", { type: "button", class: "button", onclick: () => void this.download(projectId, path, branch) }, `Download ${path.split("/").at(-1) ?? "the file"}`),
    );
  }

  private async download(projectId: string, path: string, branch: string | undefined): Promise<void> {
    try {
      saveBlob(await this.api.downloadProjectFile(projectId, path, branch), path.split("/").at(-1) ?? "download");
    } catch (error) {
      this.body.prepend(errorCallout(toApiError(error)));
    }
  }
}
