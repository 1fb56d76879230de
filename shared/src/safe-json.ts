const forbiddenKeys = new Set(["__proto__", "constructor", "prototype"]);

export type JsonParseResult = { ok: true; value: unknown } | { ok: false; error: string };

/**
 * The one JSON parse entry point for untrusted text: keys that could reach an object's prototype are
 * dropped (this also covers the `\u005f\u005fproto__` spelling, which JSON.parse decodes before the reviver runs).
 */
export function parseJson(text: string): JsonParseResult {
  try {
    const value: unknown = JSON.parse(text, (key, inner: unknown) => (forbiddenKeys.has(key) ? undefined : inner));
    return { ok: true, value };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : "invalid JSON" };
  }
}
