import { escapeHtml } from "./escape-html.js";
import { renderInline } from "./markdown-inline.js";

/** Quotes and lists nest at most this deep; deeper markers render as text, so input cannot exhaust the stack. */
const maxDepth = 8;

const fenceOpen = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)[^`]*$/;
const heading = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const rule = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const quoteMarker = /^ {0,3}> ?/;
const listMarker = /^( *)([-*+]|\d{1,9}[.)])(?:[ \t]+|$)/;
const tableSeparator = /^ *\|? *:?-+:? *(?:\| *:?-+:? *)*\|? *$/;
const taskBox = /^\[([ xX])\][ \t]+/;

/**
 * Renders untrusted markdown (model output, files the model wrote) as HTML that is safe to assign to
 * `innerHTML`: text is escaped by `renderInline` or `escapeHtml` before any markup is added, and code is
 * only ever escaped. Meant to be called again on every streamed delta: an unclosed code fence renders as
 * code to the end, so a half-received answer already looks right.
 */
export function renderMarkdown(markdown: string): string {
  const lines = markdown
    .replace(/\u0000/g, "")
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((line) => line.replace(/^\t+/, (tabs) => "    ".repeat(tabs.length)));
  return renderBlocks(lines, 0, false);
}

/** `tight` renders paragraphs without `<p>`, as in a list item with no blank line inside. */
function renderBlocks(lines: string[], depth: number, tight: boolean): string {
  const html: string[] = [];
  let index = 0;
  while (index < lines.length) {
    const line = lines[index] ?? "";
    if (line.trim() === "") {
      index++;
      continue;
    }
    const fence = fenceOpen.exec(line);
    if (fence) {
      index = renderFence(lines, index, fence, html);
      continue;
    }
    const title = heading.exec(line);
    if (title) {
      const level = (title[1] ?? "#").length;
      html.push(`<h${level}>${renderInline(title[2] ?? "")}</h${level}>`);
      index++;
      continue;
    }
    if (rule.test(line)) {
      html.push("<hr>");
      index++;
      continue;
    }
    if (depth < maxDepth && quoteMarker.test(line)) {
      const quoted: string[] = [];
      while (index < lines.length && quoteMarker.test(lines[index] ?? "")) quoted.push((lines[index++] ?? "").replace(quoteMarker, ""));
      html.push(`<blockquote>${renderBlocks(quoted, depth + 1, false)}</blockquote>`);
      continue;
    }
    if (depth < maxDepth && listMarker.test(line)) {
      index = renderList(lines, index, depth, html);
      continue;
    }
    if (line.includes("|") && tableSeparator.test(lines[index + 1] ?? "")) {
      index = renderTable(lines, index, html);
      continue;
    }
    const paragraph: string[] = [];
    while (index < lines.length && (paragraph.length === 0 || continuesParagraph(lines[index] ?? "", depth))) paragraph.push(lines[index++] ?? "");
    const text = renderInline(paragraph.map((part) => part.trim()).join("\n"));
    html.push(tight ? text : `<p>${text}</p>`);
  }
  return html.join("");
}

function continuesParagraph(line: string, depth: number): boolean {
  if (line.trim() === "" || fenceOpen.test(line) || heading.test(line) || rule.test(line)) return false;
  return !(depth < maxDepth && (quoteMarker.test(line) || listMarker.test(line)));
}

function renderFence(lines: string[], start: number, open: RegExpExecArray, html: string[]): number {
  const marker = open[1] ?? "```";
  const language = (open[2] ?? "").replace(/[^\w+#.-]/g, "").slice(0, 32);
  const closing = new RegExp(`^ {0,3}${marker[0] === "`" ? "`" : "~"}{${marker.length},}\\s*$`);
  const body: string[] = [];
  let index = start + 1;
  while (index < lines.length && !closing.test(lines[index] ?? "")) body.push(lines[index++] ?? "");
  const label = language ? ` data-language="${escapeHtml(language)}"` : "";
  html.push(`<pre${label}><code>${escapeHtml(body.join("\n"))}</code></pre>`);
  return index + 1;
}

const indentation = (line: string): number => line.length - line.trimStart().length;

/** One list: items at the first item's indentation; anything indented further belongs to the item above. */
function renderList(lines: string[], start: number, depth: number, html: string[]): number {
  const first = listMarker.exec(lines[start] ?? "") as RegExpExecArray;
  const ordered = /\d/.test(first[2] ?? "");
  const baseIndent = (first[1] ?? "").length;
  const items: string[][] = [];
  let contentIndent = 0;
  let index = start;
  while (index < lines.length) {
    const line = lines[index] ?? "";
    const marker = listMarker.exec(line);
    if (line.trim() === "") {
      const next = lines.slice(index + 1).find((later) => later.trim() !== "");
      const nextMarker = next === undefined ? null : listMarker.exec(next);
      const continues = next !== undefined && (indentation(next) > baseIndent || (nextMarker !== null && /\d/.test(nextMarker[2] ?? "") === ordered));
      if (!continues) break;
      items.at(-1)?.push("");
      index++;
    } else if (indentation(line) > baseIndent && items.length > 0) {
      items.at(-1)?.push(line.slice(Math.min(indentation(line), contentIndent)));
      index++;
    } else if (marker && /\d/.test(marker[2] ?? "") === ordered) {
      contentIndent = marker[0].length;
      items.push([line.slice(contentIndent)]);
      index++;
    } else if (items.at(-1)?.at(-1)?.trim() && continuesParagraph(line, depth + 1)) {
      // a lazy continuation line of the item's paragraph
      items.at(-1)?.push(line.trim());
      index++;
    } else break;
  }
  const startNumber = ordered ? Number.parseInt(first[2] ?? "1", 10) : 1;
  const open = ordered ? (startNumber === 1 ? "<ol>" : `<ol start="${startNumber}">`) : "<ul>";
  const body = items.map((item) => {
    const loose = item.some((part, position) => part.trim() === "" && position < item.length - 1);
    const task = taskBox.exec(item[0] ?? "");
    if (task) item[0] = (item[0] ?? "").slice(task[0].length);
    const box = task ? `<input type="checkbox" disabled${task[1] === " " ? "" : " checked"}> ` : "";
    return `<li${task ? ' class="task"' : ""}>${box}${renderBlocks(item, depth + 1, !loose)}</li>`;
  });
  html.push(`${open}${body.join("")}${ordered ? "</ol>" : "</ul>"}`);
  return index;
}

type Alignment = "" | "left" | "center" | "right";

function renderTable(lines: string[], start: number, html: string[]): number {
  const header = tableCells(lines[start] ?? "");
  const alignments: Alignment[] = tableCells(lines[start + 1] ?? "").map((cell) => {
    const left = cell.startsWith(":");
    const right = cell.endsWith(":");
    return left && right ? "center" : right ? "right" : left ? "left" : "";
  });
  const cell = (tag: "th" | "td", text: string, column: number): string => {
    const alignment = alignments[column] ?? "";
    return `<${tag}${alignment ? ` class="align-${alignment}"` : ""}>${renderInline(text)}</${tag}>`;
  };
  const rows: string[] = [];
  let index = start + 2;
  while (index < lines.length && (lines[index] ?? "").includes("|") && (lines[index] ?? "").trim() !== "") {
    const cells = tableCells(lines[index++] ?? "");
    rows.push(`<tr>${header.map((_title, column) => cell("td", cells[column] ?? "", column)).join("")}</tr>`);
  }
  const head = `<thead><tr>${header.map((title, column) => cell("th", title, column)).join("")}</tr></thead>`;
  html.push(`<div class="table-scroll"><table>${head}<tbody>${rows.join("")}</tbody></table></div>`);
  return index;
}

/** The cells of one row; a bar inside a code span, or written as `\|`, belongs to the cell. */
function tableCells(row: string): string[] {
  const cells: string[] = [];
  let current = "";
  let inCode = false;
  const text = row.trim();
  for (let position = 0; position < text.length; position++) {
    const character = text[position] ?? "";
    if (character === "\\" && text[position + 1] === "|") {
      current += "|";
      position++;
    } else if (character === "|" && !inCode) {
      cells.push(current.trim());
      current = "";
    } else {
      if (character === "`") inCode = !inCode;
      current += character;
    }
  }
  cells.push(current.trim());
  // the outer bars are optional: they leave an empty first or last cell
  if (text.startsWith("|")) cells.shift();
  if (text.endsWith("|") && !text.endsWith("\\|") && cells.length > 1) cells.pop();
  return cells;
}
