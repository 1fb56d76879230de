// @vitest-environment jsdom
import DOMPurify from "dompurify";
import markdownIt from "markdown-it";
import { describe, expect, it } from "vitest";
import { markdownRenderer } from "./markdown.js";

/** The renderer the page builds from the browser builds of the same two packages. */
const renderMarkdown = markdownRenderer(markdownIt, DOMPurify);

/** Every tag the renderer may produce; anything else in the output would be markup smuggled in by the input. */
const allowedTags = new Set(["p", "br", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "s", "code", "pre", "a", "ul", "ol", "li", "blockquote", "hr", "div", "table", "thead", "tbody", "tr", "th", "td"]);

/** Attributes the renderer writes itself; an event handler or a style would have been smuggled in. */
const allowedAttributes = new Set(["href", "title", "target", "rel", "class", "start", "data-language"]);

/**
 * Escaped text holds no `<` and escaped attribute values hold no `>`, so every `<…>` in the output is a
 * real tag: each must be an allowed tag with allowed, double-quoted attributes only.
 */
function expectOnlyAllowedMarkup(html: string): void {
  for (const [tag] of html.matchAll(/<[^>]*>/g)) {
    const parsed = /^<\/?([a-z0-9]+)((?:\s+[a-z-]+(?:="[^"<>]*")?)*)\s*>$/.exec(tag);
    expect(parsed, `malformed tag ${tag}`).not.toBeNull();
    expect(allowedTags, `unexpected tag ${tag}`).toContain(parsed?.[1]);
    for (const [, name] of (parsed?.[2] ?? "").matchAll(/\s+([a-z-]+)(?:="[^"]*")?/g)) expect(allowedAttributes, `unexpected attribute in ${tag}`).toContain(name);
  }
  expect(html.split("<").length, "a stray < outside a tag").toBe((html.match(/<[^>]*>/g)?.length ?? 0) + 1);
}

describe("renderMarkdown", () => {
  /** markdown-it ends every block with a newline; the tests read the markup without them */
  const render = (markdown: string): string => renderMarkdown(markdown).replace(/\n(?=<|$)|(?<=>)\n/g, "");

  it("renders headings, paragraphs, bold, italic, strike-through and inline code", () => {
    expect(render("# Title\n\nSome **bold**, *italic*, _also_, ~~gone~~ and `code`.")).toBe(
      "<h1>Title</h1><p>Some <strong>bold</strong>, <em>italic</em>, <em>also</em>, <s>gone</s> and <code>code</code>.</p>",
    );
  });

  it("keeps single line breaks inside a paragraph, as a chat reader expects", () => {
    expect(render("one\ntwo\n\nthree")).toBe("<p>one<br>two</p><p>three</p>");
  });

  it("leaves underscores inside words alone", () => {
    expect(render("snake_case_name and __init__")).toBe("<p>snake_case_name and <strong>init</strong></p>");
  });

  it("renders fenced code escaped and unformatted, with its language as a label", () => {
    expect(render("```ts\nconst a = 1 < 2 && **b**;\n```")).toBe('<pre data-language="ts"><code>const a = 1 &lt; 2 &amp;&amp; **b**;</code></pre>');
  });

  it("renders an unclosed fence as code to the end, as it looks while an answer streams in", () => {
    expect(render("Look:\n```\nline one\nline two")).toBe("<p>Look:</p><pre><code>line one\nline two</code></pre>");
  });

  it("renders bullet, numbered and nested lists", () => {
    expect(render("- one\n- two\n  - nested\n\n3. three\n4. four\n\nthen\n\n1. Steps\n   - first")).toBe(
      "<ul><li>one</li><li>two<ul><li>nested</li></ul></li></ul>" + '<ol start="3"><li>three</li><li>four</li></ol>' + "<p>then</p><ol><li>Steps<ul><li>first</li></ul></li></ol>",
    );
  });

  it("renders blockquotes, rules and tables with alignment, a table inside a wrapper that scrolls", () => {
    expect(render("> quoted **text**\n> more\n\n---\n\n| a | b |\n|:--|--:|\n| 1 | `x\\|y` |")).toBe(
      "<blockquote><p>quoted <strong>text</strong><br>more</p></blockquote><hr>" +
        '<div class="table-scroll"><table><thead><tr><th class="align-left">a</th><th class="align-right">b</th></tr></thead>' +
        '<tbody><tr><td class="align-left">1</td><td class="align-right"><code>x|y</code></td></tr></tbody></table></div>',
    );
  });

  it("renders http(s) and relative links, external ones opening in a new tab without an opener", () => {
    expect(render("[docs](https://example.com/a_b?x=1&y=2) and [brief](brief.md) and https://example.com/page.")).toBe(
      '<p><a href="https://example.com/a_b?x=1&amp;y=2" target="_blank" rel="noopener noreferrer">docs</a> and <a href="brief.md">brief</a> and ' +
        '<a href="https://example.com/page" target="_blank" rel="noopener noreferrer">https://example.com/page</a>.</p>',
    );
  });

  it("links only URLs written with their scheme, so a domain name in prose stays text", () => {
    expect(render("see example.com or mail a@example.com")).toBe("<p>see example.com or mail a@example.com</p>");
  });

  it("renders an image as a link to it, so model output cannot load pictures by itself", () => {
    expect(render("![chart](https://example.com/c.png) ![](plot.png)")).toBe(
      '<p><a href="https://example.com/c.png" target="_blank" rel="noopener noreferrer">chart</a> <a href="plot.png">plot.png</a></p>',
    );
  });

  it("bounds nesting, so a deep quote cannot exhaust the stack, and renders what follows it", () => {
    const html = renderMarkdown(`${">".repeat(10_000)} deep\n\nafter`);
    expect(html.match(/<blockquote>/g)?.length).toBe(20);
    expect(html).toContain("<p>after</p>");
  });
});

describe("renderMarkdown against XSS", () => {
  const attacks: Array<[string, string]> = [
    ["<script> element", "<script>alert(1)</script>"],
    ["<img onerror> element", '<img src=x onerror="alert(1)">'],
    ["<svg onload> element", "<svg/onload=alert(1)>"],
    ["<iframe srcdoc> element", '<iframe srcdoc="<script>alert(1)</script>"></iframe>'],
    ["<a href=javascript:> element written as HTML", '<a href="javascript:alert(1)">x</a>'],
    ["HTML inside a code span", "`<img src=x onerror=alert(1)>`"],
    ["HTML inside a fenced code block", "```html\n<script>alert(1)</script>\n```"],
    ["fence language that breaks the attribute", '```x"onmouseover="alert(1)\ncode\n```'],
    ["HTML inside a heading, list, quote and table", "# <b onclick=a()>\n- <i>\n> <u>\n\n| <x> |\n|---|\n| <y> |"],
    ["attribute-breaking double quote in a link URL", '[x](https://e.com/"onmouseover="alert(1))'],
    ["attribute-breaking single quote in a link URL", "[x](https://e.com/'onmouseover='alert(1))"],
    ["attribute-breaking quote in a bare URL", 'https://e.com/"onmouseover="alert(1)'],
    ["HTML inside link text", "[<img src=x onerror=alert(1)>](https://e.com)"],
    ["markdown link title that breaks the attribute", '[x](https://e.com "a" onmouseover="b")'],
    ["forged placeholder characters", "\u00000\u0000 [a](https://e.com)"],
    ["entity-encoded tag", "&lt;script&gt;alert(1)&lt;/script&gt;"],
  ];

  it.each(attacks)("renders %s as inert text", (_name, attack) => {
    const html = renderMarkdown(attack);
    expectOnlyAllowedMarkup(html);
    expect(html).not.toMatch(/<(script|img|svg|iframe|b|i|u|x|y)\b/i);
  });

  it("shows an <img onerror> attack as the text the model wrote", () => {
    expect(renderMarkdown('<img src=x onerror="alert(1)">')).toBe('<p>&lt;img src=x onerror="alert(1)"&gt;</p>\n');
  });

  it("removes what a parser bug would let through: DOMPurify keeps only the markup markdown may produce", () => {
    const leakyParser = markdownRenderer((options) => markdownIt({ ...options, html: true }), DOMPurify);
    const html = leakyParser('<img src=x onerror="alert(1)"><a href="javascript:alert(1)" onclick="b()">x</a> <b style="color:red">bold</b>');
    expectOnlyAllowedMarkup(html);
    expect(html).toBe("<p><a>x</a> bold</p>\n");
  });

  it("shows raw HTML blocks and inline HTML as text, since raw HTML is off", () => {
    const html = renderMarkdown('<div onclick="a()">\n<b>bold</b>\n</div>\n\ntext <span style="x">in</span> <!-- c -->');
    expectOnlyAllowedMarkup(html);
    expect(html).toContain("&lt;b&gt;bold&lt;/b&gt;");
    expect(html).toContain("&lt;!-- c --&gt;");
  });

  it("shows an entity-encoded tag as the text it stands for, never as markup", () => {
    expect(renderMarkdown("&lt;script&gt;")).toBe("<p>&lt;script&gt;</p>\n");
  });

  const dangerousLinks = [
    "javascript:alert(1)",
    "JavaScript:alert(1)",
    "java\tscript:alert(1)",
    " javascript:alert(1)",
    "\u0001javascript:alert(1)",
    "javascript&#58;alert(1)",
    "&#106;avascript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
    "DATA:image/svg+xml,<svg onload=alert(1)>",
    "data:image/png;base64,iVBORw0KGgo=",
    "vbscript:msgbox(1)",
    "file:///etc/passwd",
  ];

  it.each(dangerousLinks)("renders a %j link as its text, without an anchor", (url) => {
    const html = renderMarkdown(`[click me](${url})`);
    expect(html).not.toContain("<a");
    expect(html).toContain("click me");
    expectOnlyAllowedMarkup(html);
  });

  it.each(dangerousLinks)("renders a %j image as its text, without an anchor or a picture", (url) => {
    const html = renderMarkdown(`![click me](${url})`);
    expect(html).not.toMatch(/<(a|img)\b/);
    expectOnlyAllowedMarkup(html);
  });

  it.each(["<javascript:alert(1)>", "<data:text/html,x>", "<vbscript:msgbox(1)>"])("renders the autolink %s as text", (autolink) => {
    const html = renderMarkdown(`go ${autolink} now`);
    expect(html).not.toContain("<a");
    expectOnlyAllowedMarkup(html);
  });
});
