import type { FileListing } from "@agent-orchestrator/shared/wire";
import type { ApiClient } from "../api/api-client.js";
import { toApiError } from "../api/api-error.js";
import { byId, h } from "../lib/dom.js";
import { errorCallout } from "../ui/error-callout.js";
import { formatBytes, formatRelativeTime } from "../lib/format.js";
import { renderMarkdown } from "../lib/page-markdown.js";
import { sessionLinkTarget } from "../files/session-link.js";
import { sessionRelativePath } from "./tool-call-target.js";

const isMarkdown = (path: string, contentType: string): boolean => /\.(md|markdown)$/i.test(path) || contentType.includes("markdown");

/**
 * The side panel with the files a session wrote: a list, then one file, markdown rendered (as safely as
 * chat answers: the model wrote it) and anything else shown as plain text.
 */
export class FileViewer {
  private readonly panel = byId<HTMLElement>("files-panel");
  private readonly title = byId<HTMLElement>("files-title");
  private readonly body = byId<HTMLElement>("files-body");
  private readonly back = byId<HTMLButtonElement>("files-back");
  private sessionId: string | undefined;
  /** bumped on every load, so a slow answer for an earlier choice never replaces a later one */
  private generation = 0;

  constructor(
    private readonly api: ApiClient,
    private readonly onToggle: (open: boolean) => void,
  ) {
    byId<HTMLButtonElement>("files-close").addEventListener("click", () => this.close());
    this.back.addEventListener("click", () => void this.showList());
    document.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && !event.defaultPrevented) this.close();
    });
  }

  get isOpen(): boolean {
    return !this.panel.hidden;
  }

  /** Opens the panel on the session's files, or directly on one of them (`relativePath` as in `brief.md`). */
  async open(sessionId: string, relativePath?: string): Promise<void> {
    this.sessionId = sessionId;
    this.panel.hidden = false;
    this.onToggle(true);
    byId<HTMLButtonElement>("files-close").focus({ preventScroll: true });
    if (relativePath) await this.showFile(relativePath);
    else await this.showList();
  }

  close(): void {
    if (this.panel.hidden) return;
    const hadFocus = this.panel.contains(document.activeElement) || document.activeElement === document.body;
    this.panel.hidden = true;
    this.generation++;
    this.onToggle(false);
    // keyboard users continue where they opened the panel from
    if (hadFocus) byId<HTMLElement>("files-button").focus({ preventScroll: true });
  }

  /** A new file may have been written: a visible list is loaded again. */
  async refresh(sessionId: string): Promise<void> {
    if (this.isOpen && this.sessionId === sessionId && this.back.hidden) await this.showList();
  }

  private async showList(): Promise<void> {
    const generation = ++this.generation;
    const sessionId = this.sessionId;
    if (!sessionId) return;
    this.title.textContent = "Files";
    this.back.hidden = true;
    this.body.replaceChildren(h("p", { class: "muted" }, "Loading…"));
    try {
      const files = await this.api.listFiles(sessionId);
      if (generation !== this.generation) return;
      this.body.replaceChildren(files.length === 0 ? h("p", { class: "empty" }, "This session has not saved any files yet.") : this.fileList(files));
      this.keepFocus(this.body.querySelector("button") ?? byId("files-close"));
    } catch (error) {
      if (generation === this.generation) this.body.replaceChildren(errorCallout(toApiError(error)));
    }
  }

  private fileList(files: FileListing[]): HTMLElement {
    return h(
      "ul",
      { class: "file-list" },
      ...files.map((file) => {
        const relative = sessionRelativePath(file.path) ?? file.path;
        return h(
          "li",
          {},
          h(
            "button",
            { type: "button", class: "file-item", onclick: () => void this.showFile(relative) },
            h("span", { class: "file-name" }, relative),
            h("span", { class: "file-meta" }, `${formatBytes(file.size)} · ${formatRelativeTime(file.updated_at)}`),
          ),
        );
      }),
    );
  }

  private async showFile(relativePath: string): Promise<void> {
    const generation = ++this.generation;
    const sessionId = this.sessionId;
    if (!sessionId) return;
    this.title.textContent = relativePath;
    this.back.hidden = false;
    this.body.replaceChildren(h("p", { class: "muted" }, "Loading…"));
    try {
      const file = await this.api.readFile(sessionId, relativePath);
      if (generation !== this.generation) return;
      const content = isMarkdown(relativePath, file.contentType) ? this.renderedMarkdown(file.text, relativePath) : h("pre", { class: "file-text" }, file.text);
      this.body.replaceChildren(
        h(
          "div",
          { class: "file-actions" },
          file.truncated ? h("span", { class: "muted" }, "Only the start of this large file is shown.") : null,
          this.downloadButton(relativePath, file.text, file.contentType),
        ),
        content,
      );
      this.keepFocus(this.back);
    } catch (error) {
      if (generation === this.generation) this.body.replaceChildren(errorCallout(toApiError(error)));
    }
  }

  /** Rendered like a chat answer; a link to another file of the session opens it here. */
  private renderedMarkdown(text: string, relativePath: string): HTMLElement {
    const element = h("div", { class: "markdown file-markdown" });
    element.innerHTML = renderMarkdown(text);
    element.addEventListener("click", (event) => {
      const target = sessionLinkTarget((event.target as Element).closest("a")?.getAttribute("href") ?? "", relativePath);
      if (target === undefined) return;
      event.preventDefault();
      void this.showFile(target);
    });
    return element;
  }

  /** Replacing the panel's content drops the focus of a keyboard user inside it: it moves to `target` instead. */
  private keepFocus(target: HTMLElement): void {
    if (document.activeElement === document.body || this.panel.contains(document.activeElement)) target.focus({ preventScroll: true });
  }

  /** A download made from the text already fetched: a plain link could not carry the bearer token. */
  private downloadButton(relativePath: string, text: string, contentType: string): HTMLButtonElement {
    return h(
      "button",
      {
        type: "button",
        class: "button button-quiet",
        onclick: () => {
          const url = URL.createObjectURL(new Blob([text], { type: contentType }));
          const link = h("a", { href: url, download: relativePath.split("/").at(-1) ?? "file" });
          link.click();
          setTimeout(() => URL.revokeObjectURL(url), 1000);
        },
      },
      "Download",
    );
  }
}
