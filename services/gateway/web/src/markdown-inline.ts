import { escapeHtml } from "./escape-html.js";
import { safeUrl } from "./safe-url.js";

/** Marks a finished piece of HTML inside text that is still to be escaped; NUL is removed from input first. */
const placeholder = (index: number): string => `\u0000${index}\u0000`;
const placeholderPattern = /\u0000(\d+)\u0000/g;

const backslashEscape = /\\([\\`*_{}[\]()#+\-.!|~<>])/g;
/** single or double backticks; the double form may hold a single backtick */
const codeSpan = /``(.+?)``|`([^`]+)`/g;
/** `[text](url "title")` and `![alt](url)`; the URL may hold one level of balanced parentheses */
const link = /(!?)\[([^\]\n]*)\]\(\s*<?((?:[^\s<>()\u0000]|\([^\s<>()\u0000]*\))*)>?(?:\s+"[^"\n]*")?\s*\)/g;
const bareUrl = /\bhttps?:\/\/[^\s<>"'`\u0000]+/g;

/**
 * Renders one block's inline markdown (code spans, links, bold, italic, strike-through, line breaks) as HTML.
 *
 * Safety invariant: every character of `text` reaches the output through `escapeHtml`, and the only markup
 * added is a fixed set of tags whose attribute values are escaped too. Link targets pass `safeUrl` first.
 */
export function renderInline(text: string): string {
  const pieces: string[] = [];
  const keep = (html: string): string => placeholder(pieces.push(html) - 1);
  let source = text.replace(/\u0000/g, "");

  source = source.replace(backslashEscape, (_match, character: string) => keep(escapeHtml(character)));
  source = source.replace(codeSpan, (_match, double: string | undefined, single: string | undefined) =>
    keep(`<code>${escapeHtml((double ?? single ?? "").replace(/^ (.*) $/s, "$1"))}</code>`),
  );
  source = source.replace(link, (_match, bang: string, label: string, url: string) => {
    // images become links: a picture from model output would be a request the user did not ask for
    const content = label.trim() === "" && bang ? escapeHtml(url) : renderEmphasis(escapeHtml(label));
    return keep(anchor(url, content) ?? content);
  });
  source = source.replace(bareUrl, (match) => {
    const url = match.replace(/[.,;:!?)\]]+$/, "");
    return keep(anchor(url, escapeHtml(url)) ?? escapeHtml(url)) + escapeHtml(match.slice(url.length));
  });

  const html = renderEmphasis(escapeHtml(source)).replace(/\n/g, "<br>");
  return restore(html, pieces);
}

function anchor(url: string, content: string): string | undefined {
  const href = safeUrl(url);
  if (href === undefined) return undefined;
  const external = /^https?:/i.test(href) ? ' target="_blank" rel="noopener noreferrer"' : "";
  return `<a href="${escapeHtml(href)}"${external}>${content}</a>`;
}

/** Emphasis on already escaped text: escaping never produces `*`, `_` or `~`, so these tags wrap inert text. */
function renderEmphasis(escaped: string): string {
  return escaped
    .replace(/\*\*(?=\S)([\s\S]*?\S)\*\*/g, "<strong>$1</strong>")
    .replace(/(^|[^\p{L}\p{N}_])__(?=\S)([\s\S]*?\S)__(?![\p{L}\p{N}_])/gu, "$1<strong>$2</strong>")
    .replace(/\*(?=[^\s*])([^*]*?[^\s*])\*/g, "<em>$1</em>")
    .replace(/(^|[^\p{L}\p{N}_])_(?=[^\s_])([^_]*?[^\s_])_(?![\p{L}\p{N}_])/gu, "$1<em>$2</em>")
    .replace(/~~(?=\S)([\s\S]*?\S)~~/g, "<del>$1</del>");
}

/** Puts the kept pieces back; a piece may itself hold placeholders (a code span inside a link's text). */
function restore(html: string, pieces: string[]): string {
  return html.replace(placeholderPattern, (_match, index: string) => restore(pieces[Number(index)] ?? "", pieces));
}
