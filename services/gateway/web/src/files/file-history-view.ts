import type { FileListing, FileRevision } from "@agent-orchestrator/shared/wire";
import type { ApiClient } from "../api/api-client.js";
import { toApiError } from "../api/api-error.js";
import { h } from "../lib/dom.js";
import { errorCallout } from "../ui/error-callout.js";
import { formatBytes, formatRelativeTime } from "../lib/format.js";
import { formatHashRoute } from "../lib/hash-route.js";
import { diffLinesList, diffSummary } from "./diff-lines-list.js";
import { lineDiff } from "./line-diff.js";
import { pageDiffLines } from "./page-diff.js";

export interface FileHistoryOptions {
  projectId: string;
  file: FileListing;
  /** a text file: its revisions can be compared line by line */
  text: boolean;
  /** the user may restore (an editor or the owner, and not a file of the code snapshot) */
  writable: boolean;
  restored(file: FileRevision): void;
}

/**
 * A file's history: every kept revision with who wrote it (the user, the chat and agent when a tool did),
 * a line diff between any two revisions, and restoring an old one as a new revision, after a confirmation.
 */
export class FileHistoryView {
  readonly element = h("div", { class: "file-history" }, h("p", { class: "muted" }, "Loading the history…"));
  private readonly texts = new Map<number, Promise<string>>();
  private readonly diffOutput = h("div", { class: "diff-output", "aria-live": "polite" });
  private generation = 0;

  constructor(
    private readonly api: ApiClient,
    private readonly options: FileHistoryOptions,
  ) {
    void this.load();
  }

  private async load(): Promise<void> {
    try {
      const revisions = await this.api.listRevisions(this.options.projectId, this.options.file.path);
      this.element.replaceChildren(this.revisionList(revisions), this.comparison(revisions));
    } catch (error) {
      this.element.replaceChildren(errorCallout(toApiError(error)));
    }
  }

  private revisionList(revisions: FileRevision[]): HTMLElement {
    const latest = revisions[0]?.revision;
    return h(
      "section",
      { "aria-labelledby": "revisions-title" },
      h("h3", { id: "revisions-title", class: "pane-subtitle" }, `Revisions (${revisions.length})`),
      h("ol", { class: "revision-list" }, ...revisions.map((revision) => this.revisionItem(revision, revision.revision === latest))),
    );
  }

  private revisionItem(revision: FileRevision, isLatest: boolean): HTMLLIElement {
    const { author } = revision;
    const restore =
      this.options.writable && !isLatest && !revision.deleted
        ? h("button", { type: "button", class: "button button-quiet button-small", "aria-label": `Restore revision ${revision.revision}`, onclick: () => void this.restore(revision) }, "Restore")
        : null;
    return h(
      "li",
      { class: "revision-item" },
      h(
        "div",
        { class: "revision-head" },
        h("strong", {}, `Revision ${revision.revision}`),
        isLatest ? h("span", { class: "badge" }, "latest") : null,
        revision.deleted ? h("span", { class: "badge badge-danger" }, "deleted") : null,
        restore,
      ),
      h(
        "div",
        { class: "revision-meta" },
        h("span", {}, author.user),
        author.agent_id ? h("span", {}, `agent ${author.agent_id}`) : null,
        author.session_id ? h("a", { href: formatHashRoute({ view: "session", sessionId: author.session_id }) }, "open the chat") : null,
        h("time", { datetime: revision.updated_at, title: new Date(revision.updated_at).toLocaleString() }, formatRelativeTime(revision.updated_at)),
        revision.deleted ? null : h("span", {}, formatBytes(revision.size)),
      ),
    );
  }

  private comparison(revisions: FileRevision[]): HTMLElement {
    const section = h("section", { class: "diff-section", "aria-labelledby": "diff-title" }, h("h3", { id: "diff-title", class: "pane-subtitle" }, "Compare revisions"));
    if (!this.options.text) return h("div", {}, section, h("p", { class: "muted" }, "This is not a text file: its revisions cannot be compared line by line. Download one to look at it."));
    if (revisions.length < 2) {
      section.append(h("p", { class: "muted" }, "There is only one revision so far."));
      return section;
    }
    const choice = (id: string, label: string, selected: number): HTMLSelectElement =>
      h("select", { id, "aria-label": label }, ...revisions.map((revision) => h("option", { value: String(revision.revision), selected: revision.revision === selected }, `Revision ${revision.revision}${revision.deleted ? " (deleted)" : ""}`)));
    const from = choice("diff-from", "Compare from revision", revisions[1]?.revision ?? 1);
    const to = choice("diff-to", "Compare to revision", revisions[0]?.revision ?? 1);
    const update = (): void => void this.showDiff(Number(from.value), Number(to.value), revisions);
    from.addEventListener("change", update);
    to.addEventListener("change", update);
    section.append(h("div", { class: "diff-choice" }, h("label", { for: "diff-from" }, "From"), from, h("label", { for: "diff-to" }, "to"), to), this.diffOutput);
    update();
    return section;
  }

  private async showDiff(from: number, to: number, revisions: FileRevision[]): Promise<void> {
    const generation = ++this.generation;
    this.diffOutput.replaceChildren(h("p", { class: "muted" }, "Comparing…"));
    try {
      const [oldText, newText] = await Promise.all([this.textOf(from, revisions), this.textOf(to, revisions)]);
      if (generation !== this.generation) return;
      const diff = lineDiff(pageDiffLines, oldText, newText);
      this.diffOutput.replaceChildren(h("p", { class: "diff-summary" }, `Revision ${from} → revision ${to}: ${diffSummary(diff)}`), diff.rows.length > 0 ? diffLinesList(diff, `Differences from revision ${from} to revision ${to}`) : "");
    } catch (error) {
      if (generation === this.generation) this.diffOutput.replaceChildren(errorCallout(toApiError(error)));
    }
  }

  /** A revision's text, fetched once; a deletion is an empty text. */
  private textOf(revision: number, revisions: FileRevision[]): Promise<string> {
    if (revisions.find((known) => known.revision === revision)?.deleted) return Promise.resolve("");
    let text = this.texts.get(revision);
    if (!text) {
      text = this.api.readProjectFile(this.options.projectId, this.options.file.path, { revision }).then((read) => read.content);
      // a failed read is asked again next time
      text.catch(() => this.texts.delete(revision));
      this.texts.set(revision, text);
    }
    return text;
  }

  private async restore(revision: FileRevision): Promise<void> {
    const question = `Make revision ${revision.revision} of ${this.options.file.path} the latest again? Its content becomes a new revision; nothing is lost.`;
    if (!window.confirm(question)) return;
    try {
      const file = await this.api.restoreRevision(this.options.projectId, this.options.file.path, revision.revision);
      this.options.restored(file);
    } catch (error) {
      this.element.prepend(errorCallout(toApiError(error)));
    }
  }
}
