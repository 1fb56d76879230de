import { parse } from "yaml";

/** Keys that could reach an object's prototype; dropped wherever they appear (docs/security.md case 82). */
const forbiddenKeys = new Set(["__proto__", "constructor", "prototype"]);

/** Aliases a BMAD file legitimately needs: none so far. The limit stops "billion laughs" (docs/security.md case 83). */
export const yamlAliasLimit = 50;

/** Parsed YAML, or the first line of the parser's error. */
export type YamlResult = { ok: true; value: unknown } | { ok: false; error: string };

/**
 * The one YAML entry point of the registry: the `yaml` package with the YAML 1.2 core schema (no custom
 * tags, no code, no `<<` merges), an alias limit, forbidden keys dropped, and errors returned, not thrown.
 * Size is capped by the caller before the text is read.
 */
export function parseYaml(text: string): YamlResult {
  try {
    const value: unknown = parse(text, (key, inner: unknown) => (forbiddenKeys.has(String(key)) ? undefined : inner), {
      schema: "core",
      merge: false,
      maxAliasCount: yamlAliasLimit,
      uniqueKeys: false,
      prettyErrors: false,
      // unknown tags (`!!js/function`) stay plain strings; their warnings would go to process.emitWarning
      logLevel: "error",
    });
    return { ok: true, value };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, error: message.split("\n")[0] ?? "invalid YAML" };
  }
}

/** A plain mapping from parsed YAML, or undefined for scalars, sequences and null. */
export function asMapping(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** Own property lookup on parsed YAML; never the prototype chain. */
export function field(mapping: Record<string, unknown> | undefined, key: string): unknown {
  return mapping !== undefined && Object.prototype.hasOwnProperty.call(mapping, key) ? mapping[key] : undefined;
}

/** A scalar as text (numbers and booleans too, since YAML turns `version: 1.0` into a number); else "". */
export function scalarText(value: unknown): string {
  if (typeof value === "string") return value.trim();
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return "";
}

/**
 * Any parsed YAML value as readable text: scalars as they are, sequences one item a line, mappings as
 * `key: value` lines. Used where BMAD files put structure in a place meant for prose (v4 `develop-story`).
 */
export function flattenText(value: unknown, depth = 0): string {
  if (depth > 16) return "…";
  if (Array.isArray(value)) return value.map((item) => flattenText(item, depth + 1)).filter((line) => line !== "").join("\n");
  const mapping = asMapping(value);
  if (mapping) {
    return Object.entries(mapping)
      .map(([key, inner]) => `${key}: ${flattenText(inner, depth + 1)}`)
      .join("\n");
  }
  return scalarText(value);
}

/** A YAML sequence as a list of texts (a lone scalar counts as a one-item list). */
export function textList(value: unknown): string[] {
  const items = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
  return items.map((item) => flattenText(item)).filter((item) => item !== "");
}

/** A YAML file that must be a mapping (installer manifests), in the shape the parse cache wants. */
export function parseYamlMapping(text: string): { ok: true; value: Record<string, unknown> } | { ok: false; reason: string } {
  const parsed = parseYaml(text);
  if (!parsed.ok) return { ok: false, reason: `not valid YAML: ${parsed.error}` };
  const mapping = asMapping(parsed.value);
  return mapping ? { ok: true, value: mapping } : { ok: false, reason: "not a YAML mapping" };
}
