/** Characters of text a snippet shows around a hit, about. */
export const snippetChars = 120;

/** `query` as a case-insensitive pattern of plain text: every character literal. */
export function plainTextPattern(query: string): RegExp {
  return new RegExp(query.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "iu");
}

/**
 * About `snippetChars` characters of `text` around the first match of `pattern`, on one line, with `…` where it
 * was cut; undefined when `text` does not match. The hit is searched in the text as stored, so an index never
 * points into a different string (lower-casing may change a text's length).
 */
export function matchSnippet(text: string, pattern: RegExp): string | undefined {
  const hit = pattern.exec(text);
  if (!hit) return undefined;
  const room = Math.max(0, snippetChars - hit[0].length);
  let start = Math.max(0, hit.index - Math.floor(room / 2));
  const end = Math.min(text.length, start + Math.max(snippetChars, hit[0].length));
  start = Math.max(0, Math.min(start, end - snippetChars));
  // never split a surrogate pair at either cut
  if (start > 0 && /[\uDC00-\uDFFF]/.test(text.charAt(start))) start -= 1;
  const stop = end < text.length && /[\uD800-\uDBFF]/.test(text.charAt(end - 1)) ? end + 1 : end;
  const piece = text.slice(start, stop).replace(/\s+/g, " ").trim();
  return `${start > 0 ? "…" : ""}${piece}${stop < text.length ? "…" : ""}`;
}
