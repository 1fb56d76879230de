const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** Decodes text, or returns undefined for binary content: a NUL byte or invalid UTF-8 (docs/security.md case 34). */
export function decodeText(bytes: Uint8Array): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}
