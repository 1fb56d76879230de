import type { TagElement, TagNode } from "./xml-tag-scanner.js";

/** Direct child elements with one of `names`, in document order (the 6.0-6.2 XML agents' sections). */
export function childElements(parent: TagElement, ...names: string[]): TagElement[] {
  return parent.children.filter((child): child is TagElement => child.kind === "element" && names.includes(child.name));
}

/** The first direct child element with one of `names`. */
export function firstChild(parent: TagElement, ...names: string[]): TagElement | undefined {
  return childElements(parent, ...names)[0];
}

/** The first element named `name` anywhere below `parent` (document order). Depth is bounded by the scanner. */
export function findElement(parent: TagElement, name: string): TagElement | undefined {
  for (const child of parent.children) {
    if (child.kind !== "element") continue;
    if (child.name === name) return child;
    const inner = findElement(child, name);
    if (inner) return inner;
  }
  return undefined;
}

/** All character data below `node`, concatenated. */
export function rawText(node: TagNode): string {
  if (node.kind === "text") return node.value;
  return node.children.map(rawText).join("");
}

/**
 * The text of a block such as `<step>`, `<handler>` or `<principles>`: each line trimmed, blank runs
 * collapsed, leading and trailing blank lines dropped. A block made only of child elements (`<principles>`
 * of `<p>`s, `<steps>` of `<s>`s) gives one line per child, even when the children share a line.
 */
export function blockText(node: TagElement): string {
  const elements = node.children.filter((child): child is TagElement => child.kind === "element");
  const looseText = node.children.some((child) => child.kind === "text" && child.value.trim() !== "");
  if (elements.length > 0 && !looseText) return elements.map(blockText).filter((line) => line !== "").join("\n");
  return normalizeBlock(rawText(node));
}

/** Trims each line, collapses runs of blank lines into one and drops blank lines at both ends. */
export function normalizeBlock(text: string): string {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/** All whitespace runs as single spaces: for names, titles and menu descriptions. */
export function inlineText(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/**
 * A list written either as child elements (`<r>`, `<rule>`, `<i>`) or as lines of text, with `- ` bullets
 * removed. Empty entries are dropped.
 */
export function listItems(node: TagElement, itemNames: string[]): string[] {
  const items = childElements(node, ...itemNames);
  if (items.length > 0) return items.map(blockText).filter((item) => item !== "");
  return blockText(node)
    .split("\n")
    .map((line) => line.replace(/^[-*•]\s+/, "").trim())
    .filter((line) => line !== "");
}
