import { forbiddenKeys, isForbiddenKey } from "../wire/forbidden-keys.js";

/**
 * What a forbidden key must contain somewhere in the text: its own spelling, or a `\u` escape (the only
 * way JSON can spell a letter or `_` otherwise).
 */
const keyMarkers = [...forbiddenKeys, "\\u"];

type JsonParseResult = { ok: true; value: unknown } | { ok: false; error: string };

/**
 * The one JSON parse entry point for untrusted text: keys that could reach an object's prototype are
 * dropped (this also covers the `\u005f\u005fproto__` spelling, which JSON.parse decodes before the reviver runs).
 * Text in which no such key can be spelled is parsed without the reviver, which would cost a call per value
 * of every message received.
 */
export function parseJson(text: string): JsonParseResult {
  try {
    const value: unknown = keyMarkers.some((marker) => text.includes(marker))
      ? JSON.parse(text, (key, inner: unknown) => (isForbiddenKey(key) ? undefined : inner))
      : JSON.parse(text);
    return { ok: true, value };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : "invalid JSON" };
  }
}
