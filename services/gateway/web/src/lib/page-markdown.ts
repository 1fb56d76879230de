import type { DOMPurify } from "dompurify";
import type createMarkdownIt from "markdown-it";
import { markdownRenderer } from "./markdown.js";

declare global {
  // set by the packages' own browser builds, which index.html loads before this module (the gateway serves them)
  var markdownit: typeof createMarkdownIt;
  var DOMPurify: DOMPurify;
}

/** The page's one markdown renderer. */
export const renderMarkdown = markdownRenderer(globalThis.markdownit, globalThis.DOMPurify);
