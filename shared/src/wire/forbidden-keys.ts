/**
 * Keys that could reach an object's prototype when untrusted text (JSON, YAML, TOML, CSV, XML) becomes an
 * object; every parser of such text drops them (docs/security.md case 82).
 */
export const forbiddenKeys: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

/** True for a key no parsed object may have. */
export function isForbiddenKey(key: string): boolean {
  return forbiddenKeys.has(key);
}
