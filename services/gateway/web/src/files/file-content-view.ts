import { parseCsv } from "./csv-parse.js";
import { h } from "../lib/dom.js";
import type { FileKind } from "./file-kind.js";
import { renderMarkdown } from "../lib/page-markdown.js";
import { sessionLinkTarget } from "./session-link.js";

/**
 * A text file's content as the viewer shows it. Markdown is rendered as safely as chat answers (a model or
 * an uploaded document wrote it), and a link in it to another file of the project opens that file here;
 * everything else reaches the page as text nodes only, never as markup.
 */
export function fileContentView(kind: FileKind, path: string, content: string, openPath: (path: string) => void, converted = false): HTMLElement {
  // a converted document's `<!-- page N -->` lines mark pages for the model; shown as text (raw HTML is off) they only clutter
  if (kind === "markdown") return markdownView(converted ? content.replace(/^<!-- page \d+ -->[ \t]*$/gm, "") : content, path, openPath);
  if (kind === "csv") return csvView(content);
  if (kind === "json") return jsonView(content);
  return h("pre", { class: "file-text" }, content);
}

function markdownView(content: string, path: string, openPath: (path: string) => void): HTMLElement {
  const element = h("div", { class: "markdown file-markdown" });
  element.innerHTML = renderMarkdown(content);
  element.addEventListener("click", (event) => {
    const target = sessionLinkTarget((event.target as Element).closest("a")?.getAttribute("href") ?? "", path);
    if (target === undefined) return;
    event.preventDefault();
    openPath(target);
  });
  return element;
}

function jsonView(content: string): HTMLElement {
  let pretty: string;
  try {
    pretty = JSON.stringify(JSON.parse(content), null, 2);
  } catch (error) {
    return h("div", {}, h("p", { class: "muted" }, `Not valid JSON (${error instanceof Error ? error.message : "unreadable"}); shown as written.`), h("pre", { class: "file-text" }, content));
  }
  return h("pre", { class: "file-text" }, pretty);
}

function csvView(content: string): HTMLElement {
  const { rows, cut } = parseCsv(content);
  const [header, ...body] = rows;
  if (!header) return h("p", { class: "empty" }, "This file is empty.");
  const columns = Math.max(...rows.map((row) => row.length));
  const cells = (row: string[], tag: "th" | "td"): HTMLElement[] => Array.from({ length: columns }, (_, index) => h(tag, tag === "th" ? { scope: "col" } : {}, row[index] ?? ""));
  return h(
    "div",
    {},
    // focusable, so a keyboard user can scroll a wide table sideways
    h("div", { class: "table-scroll csv-table", tabindex: "0", role: "region", "aria-label": "Table" }, h("table", {}, h("thead", {}, h("tr", {}, ...cells(header, "th"))), h("tbody", {}, ...body.map((row) => h("tr", {}, ...cells(row, "td")))))),
    cut ? h("p", { class: "muted" }, `Only the first ${rows.length} rows are shown; download the file for the rest.`) : null,
  );
}
