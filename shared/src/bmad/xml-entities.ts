/** The five XML entities BMAD's XML agents (6.0 alphas to 6.2) use; DTD-declared entities are never expanded (no DTD is read at all). */
const namedEntities: Readonly<Record<string, string>> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

const entityPattern = /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|(amp|lt|gt|quot|apos));/g;

/**
 * Decodes `&amp; &lt; &gt; &quot; &apos;` and numeric references (`&#123;`, `&#x1F600;`). Anything else,
 * including an unknown name or a code point that is not a valid scalar value, is kept as written, so a
 * stray `&` in hand-written text survives.
 */
export function decodeEntities(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(entityPattern, (whole, decimal?: string, hex?: string, name?: string) => {
    if (name !== undefined) return namedEntities[name] ?? whole;
    const codePoint = decimal !== undefined ? Number.parseInt(decimal, 10) : Number.parseInt(hex ?? "", 16);
    const isScalar = codePoint > 0 && codePoint <= 0x10ffff && (codePoint < 0xd800 || codePoint > 0xdfff);
    return isScalar ? String.fromCodePoint(codePoint) : whole;
  });
}
