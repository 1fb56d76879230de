import type { DOMPurify } from "dompurify";
import type { MarkdownIt, MarkdownItOptions, RendererRule, Token } from "markdown-it";
import { safeUrl } from "./safe-url.js";

/** Every tag markdown-it writes with raw HTML off, plus the table wrapper; DOMPurify removes anything else. */
const allowedTags = ["p", "br", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "s", "code", "pre", "a", "ul", "ol", "li", "blockquote", "hr", "div", "table", "thead", "tbody", "tr", "th", "td"];
const allowedAttributes = ["href", "title", "target", "rel", "class", "start", "data-language"];

/** Quotes and lists nest at most this deep (markdown-it leaves out what is deeper), so input cannot exhaust the stack. */
const maxNesting = 20;

export type MarkdownRenderer = (markdown: string) => string;

/**
 * Renders untrusted markdown (model output, files the model wrote) as HTML that is safe to assign to
 * `innerHTML`: markdown-it with raw HTML off escapes every character of the input, link targets must pass
 * `safeUrl`, and DOMPurify then keeps only the tags and attributes listed above, in case a parser bug lets
 * markup through. Meant to be called again on every streamed delta: an unclosed code fence renders as code
 * to the end, so a half-received answer already looks right.
 *
 * The page gets both libraries from their browser builds (see `page-markdown.ts`); tests pass the Node ones.
 */
export function markdownRenderer(markdownIt: (options: MarkdownItOptions) => MarkdownIt, purify: DOMPurify): MarkdownRenderer {
  // breaks: a single newline is a line break, as a chat reader expects
  const parser = markdownIt({ html: false, breaks: true, linkify: true, maxNesting });
  // only URLs written with their scheme become links: `example.com` in prose stays text
  parser.linkify.set({ fuzzyLink: false, fuzzyEmail: false });
  parser.validateLink = (url) => safeUrl(url) !== undefined;

  const { escapeHtml } = parser.utils;
  const attribute = (token: Token, name: string): string => String(token.attrGet(name) ?? "");
  const rules = parser.renderer.rules;
  rules.link_open = (tokens, index, options, _env, self) => {
    const token = tokens[index] as Token;
    for (const [name, value] of externalLinkAttributes(attribute(token, "href"))) token.attrSet(name, value);
    return self.renderToken(tokens, index, options);
  };
  // images become links: a picture from model output would be a request the user did not ask for
  rules.image = (tokens, index, options, env, self) => {
    const token = tokens[index] as Token;
    const href = attribute(token, "src");
    const label = self.renderInlineAsText(token.children ?? [], options, env) || href;
    const attributes: Array<[string, string]> = [["href", href], ...externalLinkAttributes(href)];
    return `<a${attributes.map(([name, value]) => ` ${name}="${escapeHtml(value)}"`).join("")}>${escapeHtml(label)}</a>`;
  };
  rules.fence = (tokens, index) => {
    const token = tokens[index] as Token;
    const language = (token.info.trim().split(/\s+/)[0] ?? "").slice(0, 32);
    const label = language ? ` data-language="${escapeHtml(language)}"` : "";
    return `<pre${label}><code>${escapeHtml(token.content)}</code></pre>\n`;
  };
  // wide tables scroll on their own instead of widening the chat
  rules.table_open = () => '<div class="table-scroll"><table>\n';
  rules.table_close = () => "</table></div>\n";
  rules.th_open = alignmentAsClass;
  rules.td_open = alignmentAsClass;

  const config = { ALLOWED_TAGS: allowedTags, ALLOWED_ATTR: allowedAttributes, ALLOW_DATA_ATTR: false, ALLOW_ARIA_ATTR: false };
  return (markdown) => purify.sanitize(parser.render(markdown), config);
}

/** External links open in a new tab that gets no handle on this page and no referrer. */
function externalLinkAttributes(href: string): Array<[string, string]> {
  return /^https?:/i.test(href) ? [["target", "_blank"], ["rel", "noopener noreferrer"]] : [];
}

/** markdown-it aligns cells with a style attribute; the page's style sheet has classes for that instead. */
const alignmentAsClass: RendererRule = (tokens, index, options, _env, self) => {
  const token = tokens[index] as Token;
  const alignment = /text-align:(\w+)/.exec(String(token.attrGet("style") ?? ""))?.[1];
  token.attrs = (token.attrs ?? []).filter(([name]) => name !== "style");
  if (alignment) token.attrSet("class", `align-${alignment}`);
  return self.renderToken(tokens, index, options);
};
