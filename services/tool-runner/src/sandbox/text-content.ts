const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The end of the longest prefix of `bytes` no longer than `limit` that does not cut a UTF-8 character.
 * A UTF-8 character is at most 4 bytes, so at most 3 continuation bytes are stepped over.
 */
export function utf8PrefixEnd(bytes: Uint8Array, limit: number): number {
  if (limit >= bytes.length) return bytes.length;
  let end = limit;
  for (let step = 0; step < 3 && end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80; step++) end--;
  return end;
}

/** Decodes text, or returns undefined for binary content: a NUL byte or invalid UTF-8 (docs/security.md case 34). */
export function decodeText(bytes: Uint8Array): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}
