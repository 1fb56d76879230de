/**
 * The end of the longest prefix of `bytes` no longer than `limit` that does not cut a UTF-8 character.
 * A UTF-8 character is at most 4 bytes, so at most 3 continuation bytes are stepped over.
 */
export function utf8PrefixEnd(bytes: Uint8Array, limit: number): number {
  if (limit >= bytes.length) return bytes.length;
  let end = Math.max(0, limit);
  for (let step = 0; step < 3 && end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80; step++) end--;
  return end;
}
