import { getOwn } from "../wire/get-own.js";

/** A plain mapping from parsed YAML, or undefined for scalars, sequences and null. */
export function asMapping(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** Own property lookup on parsed YAML; never the prototype chain. */
export function field(mapping: Record<string, unknown> | undefined, key: string): unknown {
  return mapping === undefined ? undefined : getOwn(mapping, key);
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
