/**
 * The code a conversion worker thread runs (run-conversion-worker.ts), as plain JavaScript evaluated by
 * `new Worker(code, { eval: true })`: a string, so it loads the same from the TypeScript sources (vitest, tsx,
 * whose transforms would add helpers to a function's `toString()`) and from the compiled `dist/`. The libraries
 * come by the absolute file URLs the main thread resolved (`workerData.libraries`), so nothing here depends on
 * where this code is evaluated from.
 *
 * One worker converts one document (`workerData.format`, `workerData.bytes`) and posts one reply:
 * `{ markdown, cut }`, `{ failure }` (a reason in words for the user), or `{ error: { name, message } }` (what a
 * library threw; the main thread turns it into words). Markdown longer than `maxOutputBytes` UTF-8 bytes is
 * sent cut (`cut: true`, at most one character more than the limit), a PDF's pages stop being read once past
 * it; the main thread cuts it exactly and adds the note.
 *
 * - PDF: pdf.js (unpdf's serverless build) with every option that could load something off: no font faces,
 *   system fonts, standard font, CMap, ICC or wasm data (text of CID fonts whose CMap is not embedded may be
 *   lost); no XFA; no range or stream requests (the bytes are all given). pdf.js never runs a document's
 *   JavaScript outside its viewer's scripting sandbox, which this build has not, and its actions (OpenAction,
 *   URI, Launch, GoToR) are only data to it. `isEvalSupported: false` is kept for a pdf.js build that still
 *   reads it: since pdf.js 5 there is no eval left to turn off. The text of each page, its items joined with
 *   the line ends pdf.js marks, whitespace tidied, after a `<!-- page N -->` line.
 * - DOCX: mammoth to HTML, then as HTML below. External file access stays off (CVE-2025-11849, mammoth before
 *   1.11 read the local files a DOCX's external image links named), the document's embedded style map is
 *   ignored, and images are never read: each becomes an `<img>` with its alt text and an empty source.
 * - HTML: decoded by its byte order mark, else its `<meta charset>`, else UTF-8 when valid, else windows-1252;
 *   a NUL byte without a UTF-16 mark is binary, not HTML. turndown (its Node build parses with domino, which
 *   loads nothing and runs no script) with GitHub tables; script, style, iframe, object, embed, form and every
 *   other element that is code, a resource or a control is removed with its content; an image becomes
 *   `[image: alt]` (nothing without alt); a link whose scheme is not http, https or mailto keeps its text only.
 *
 * Belt and braces: `fetch` and `WebSocket` throw in this thread, and the thread gets an empty environment.
 */
export const conversionWorkerCode = String.raw`
"use strict";
const { parentPort, workerData } = require("node:worker_threads");

for (const name of ["fetch", "WebSocket", "EventSource", "XMLHttpRequest"]) {
  Object.defineProperty(globalThis, name, {
    value: function blocked() { throw new Error(name + " is disabled in the document converter"); },
    configurable: false,
    writable: false,
  });
}

const { format, bytes, maxOutputBytes, libraries } = workerData;

async function load(url) {
  const module = await import(url);
  return module.default ?? module;
}

function tidy(text) {
  return text
    .replace(/\r\n?/g, "\n")
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, "")
    .replace(/[^\S\n]+/g, " ")
    .replace(/ ?\n ?/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

async function pdfToMarkdown() {
  const unpdf = await import(libraries.unpdf);
  const pdfjs = await unpdf.getResolvedPDFJS();
  const task = pdfjs.getDocument({
    data: bytes,
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    useWorkerFetch: false,
    useWasm: false,
    enableXfa: false,
    disableRange: true,
    disableStream: true,
    disableAutoFetch: true,
    isOffscreenCanvasSupported: false,
    isImageDecoderSupported: false,
    stopAtErrors: false,
    verbosity: 0,
  });
  try {
    const pdf = await task.promise;
    const pages = [];
    let size = 0;
    let anyText = false;
    for (let number = 1; number <= pdf.numPages; number++) {
      const page = await pdf.getPage(number);
      const content = await page.getTextContent();
      page.cleanup();
      const text = tidy(content.items.map((item) => (typeof item.str === "string" ? item.str + (item.hasEOL ? "\n" : "") : "")).join(""));
      if (text !== "") anyText = true;
      const part = "<!-- page " + number + " -->\n\n" + (text === "" ? "(no text on this page)" : text) + "\n";
      pages.push(part);
      size += Buffer.byteLength(part) + 1;
      if (size > maxOutputBytes && number < pdf.numPages) return { markdown: pages.join("\n"), cut: true };
    }
    if (!anyText) return { failure: "no text found in the PDF: its pages may be scanned images, and no text recognition (OCR) is done" };
    return { markdown: pages.join("\n"), cut: false };
  } finally {
    await task.destroy();
  }
}

async function docxToMarkdown() {
  const mammoth = await load(libraries.mammoth);
  const result = await mammoth.convertToHtml(
    { buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) },
    {
      externalFileAccess: false,
      includeEmbeddedStyleMap: false,
      convertImage: mammoth.images.imgElement(() => ({ src: "" })),
    },
  );
  return { markdown: await htmlToMarkdown(result.value), cut: false };
}

function charsetOf(bytes) {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return "utf-8";
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 1024)).toString("latin1");
  const meta = /<meta[^>]{0,512}?charset\s*=\s*["']?\s*([A-Za-z0-9_:.-]{1,40})/i.exec(head);
  if (meta) {
    try {
      return new TextDecoder(meta[1]).encoding;
    } catch {
      // an unknown label: guess as without one
    }
  }
  return undefined;
}

function decodeHtml() {
  const charset = charsetOf(bytes);
  if (charset === "utf-16le" || charset === "utf-16be") return new TextDecoder(charset).decode(bytes);
  if (bytes.indexOf(0) !== -1) return undefined;
  if (charset !== undefined) return new TextDecoder(charset).decode(bytes);
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return new TextDecoder("windows-1252").decode(bytes);
  }
}

function trimNewlines(text) {
  let start = 0;
  let end = text.length;
  while (start < end && text[start] === "\n") start++;
  while (end > start && text[end - 1] === "\n") end--;
  return text.slice(start, end);
}

// turndown's own, with one space after the marker ("- item", not "-   item")
function listItem(content, node, options) {
  let prefix = options.bulletListMarker + " ";
  const parent = node.parentNode;
  if (parent.nodeName === "OL") {
    const start = parent.getAttribute("start");
    const index = Array.prototype.indexOf.call(parent.children, node);
    prefix = (start ? Number(start) + index : index + 1) + ". ";
  }
  const isParagraph = content.endsWith("\n");
  const indented = (trimNewlines(content) + (isParagraph ? "\n" : "")).replace(/\n/g, "\n" + " ".repeat(prefix.length));
  return prefix + indented + (node.nextSibling ? "\n" : "");
}

function isSafeHref(href) {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(href.replace(/[\u0000-\u0020]/g, ""));
  return scheme === null || ["http", "https", "mailto"].includes(scheme[1].toLowerCase());
}

async function htmlToMarkdown(html) {
  const TurndownService = await load(libraries.turndown);
  const { gfm } = await load(libraries.gfm);
  const service = new TurndownService({ headingStyle: "atx", hr: "---", bulletListMarker: "-", codeBlockStyle: "fenced" });
  service.use(gfm);
  service.remove([
    "script", "style", "iframe", "frame", "frameset", "object", "embed", "applet", "form", "input", "button", "select",
    "textarea", "noscript", "template", "svg", "math", "canvas", "video", "audio", "picture", "source", "track", "map",
    "head", "title", "meta", "link", "base",
  ]);
  service.addRule("listItem", { filter: "li", replacement: listItem });
  service.addRule("imageAsAltText", {
    filter: "img",
    replacement: (_content, node) => {
      const alt = (node.getAttribute("alt") || "").replace(/\s+/g, " ").trim();
      return alt === "" ? "" : "[image: " + service.escape(alt) + "]";
    },
  });
  service.addRule("unsafeLinkAsText", {
    filter: (node) => node.nodeName === "A" && node.getAttribute("href") !== null && !isSafeHref(node.getAttribute("href")),
    replacement: (content) => content,
  });
  return service.turndown(html).replace(/\n{3,}/g, "\n\n").trim();
}

async function convert() {
  if (format === "pdf") return pdfToMarkdown();
  if (format === "docx") return docxToMarkdown();
  const html = decodeHtml();
  if (html === undefined) return { failure: "not an HTML document: the file is binary" };
  return { markdown: await htmlToMarkdown(html), cut: false };
}

convert().then(
  (reply) => {
    if (reply.markdown !== undefined && reply.markdown.length > maxOutputBytes) {
      reply = { markdown: reply.markdown.slice(0, maxOutputBytes + 1), cut: true };
    }
    parentPort.postMessage(reply);
  },
  (error) => {
    const name = error && typeof error.name === "string" ? error.name : "Error";
    const message = error && typeof error.message === "string" ? error.message : String(error);
    parentPort.postMessage({ error: { name, message: message.slice(0, 1000) } });
  },
);
`;
