/**
 * Keeps the head and tail of a long text within `maxChars`, with a marker saying how much was left out.
 * Cuts on code-point boundaries so no character is split.
 */
export function truncateMiddle(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const omittedBytesOf = (part: string) => Buffer.byteLength(part, "utf8");
  const keep = Math.max(0, maxChars - 64);
  const headLength = Math.ceil(keep * 0.7);
  const tailLength = keep - headLength;
  const head = Array.from(text.slice(0, headLength + 1)).slice(0, -1).join("");
  const tailSource = text.slice(text.length - tailLength - 1);
  const tail = Array.from(tailSource).slice(1).join("");
  const omitted = text.slice(head.length, text.length - tail.length);
  return `${head}\n[... ${omittedBytesOf(omitted)} bytes omitted ...]\n${tail}`;
}
