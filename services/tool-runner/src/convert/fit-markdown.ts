/**
 * The Markdown within `maxBytes` UTF-8 bytes: as it is when it fits and was not already `cut` short, else cut at
 * a character boundary and ended with a note line saying so (the note counts within the limit, and is left out
 * only when the limit is smaller than the note itself).
 */
export function fitMarkdown(markdown: string, maxBytes: number, cut: boolean): string {
  const bytes = Buffer.from(markdown, "utf8");
  if (!cut && bytes.byteLength <= maxBytes) return markdown;
  const note = `\n\n<!-- cut here: the Markdown form of this document is longer than its limit of ${maxBytes} bytes -->\n`;
  const noteBytes = Buffer.byteLength(note);
  const withNote = noteBytes <= maxBytes;
  let end = Math.min(bytes.byteLength, withNote ? maxBytes - noteBytes : maxBytes);
  // a byte 10xxxxxx continues a character: step back to the byte that starts it
  while (end > 0 && end < bytes.byteLength && ((bytes[end] as number) & 0xc0) === 0x80) end--;
  const kept = bytes.toString("utf8", 0, end).trimEnd();
  return withNote ? kept + note : kept;
}
