import { parse as parseToml, stringify as stringifyToml } from "smol-toml";
import { isForbiddenKey } from "../wire/forbidden-keys.js";
import { getOwn } from "../wire/get-own.js";

/** A TOML table as plain data. */
export type TomlTable = Record<string, unknown>;

/** Fields that key an array of tables, in the order BMAD's resolver tries them. */
const keyedMergeFields = ["code", "id"] as const;

/**
 * BMAD's structural merge of customization layers (`customize.toml` → team → user), the same rules as its
 * own resolver (docs/bmad-releases.md, "Customization layers"): scalars override, tables deep-merge, arrays
 * of tables that all carry a string `code` (or else `id`) replace matching entries and append new ones, and
 * every other array appends.
 */
export function structuralMerge(base: unknown, override: unknown): unknown {
  if (isTable(base) && isTable(override)) {
    const result: TomlTable = { ...base };
    for (const [key, value] of Object.entries(override)) {
      const kept = getOwn(result, key);
      result[key] = kept === undefined ? value : structuralMerge(kept, value);
    }
    return result;
  }
  if (Array.isArray(base) && Array.isArray(override)) return mergeArrays(base, override);
  return override;
}

/** Merges layers in order, later layers winning; an empty list gives an empty table. */
export function mergeLayers(layers: readonly TomlTable[]): TomlTable {
  let merged: TomlTable = {};
  for (const layer of layers) merged = structuralMerge(merged, layer) as TomlTable;
  return merged;
}

/**
 * A tree's central configuration layers, relative to the tree (`_bmad/`), in merge order: the installer's
 * answers, the user's, then the team's and the user's pins (docs/bmad-releases.md "Customization layers").
 */
export const centralConfigLayers = ["config.toml", "config.user.toml", "custom/config.toml", "custom/config.user.toml"] as const;

/** The team and the personal override of a skill, relative to its tree, merged in this order over its own customize.toml. */
export function skillOverrideLayers(name: string): [team: string, personal: string] {
  return [`custom/${name}.toml`, `custom/${name}.user.toml`];
}

/** What a merged customization makes a skill: an agent (`[agent]`), a workflow (`[workflow]`), else a plain skill. */
export function customizationKind(merged: TomlTable): { kind: "agent" | "workflow" | "skill"; table: TomlTable } {
  const agent = merged["agent"];
  if (isTable(agent)) return { kind: "agent", table: agent };
  const workflow = merged["workflow"];
  if (isTable(workflow)) return { kind: "workflow", table: workflow };
  return { kind: "skill", table: merged };
}

/** One TOML layer, or why it is not one (the message names no host path: the caller adds the file). */
export function parseTomlLayer(text: string): { ok: true; value: TomlTable } | { ok: false; reason: string } {
  try {
    const value = parseToml(text) as unknown;
    if (!isTable(value)) return { ok: false, reason: "not a TOML table" };
    return { ok: true, value: stripDangerousKeys(value) as TomlTable };
  } catch (error) {
    return { ok: false, reason: `not valid TOML: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}` };
  }
}

/** A table as a TOML layer's text, for BMAD's own resolver scripts to read (docs/settings.md). */
export function tomlLayerText(table: TomlTable): string {
  return `${stringifyToml(table)}\n`;
}

export function isTable(value: unknown): value is TomlTable {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

function mergeArrays(base: readonly unknown[], override: readonly unknown[]): unknown[] {
  const field = keyedField([...base, ...override]);
  if (field === undefined) return [...base, ...override];
  const result: TomlTable[] = [];
  const indexByKey = new Map<string, number>();
  for (const item of [...base, ...override] as TomlTable[]) {
    const key = item[field] as string;
    const index = indexByKey.get(key);
    if (index === undefined) {
      indexByKey.set(key, result.length);
      result.push({ ...item });
    } else {
      result[index] = { ...item };
    }
  }
  return result;
}

function keyedField(items: readonly unknown[]): string | undefined {
  if (items.length === 0 || !items.every(isTable)) return undefined;
  return keyedMergeFields.find((field) => items.every((item) => typeof item[field] === "string" && item[field] !== ""));
}

// TOML keys come from files an operator may not have written; never let them reach an object's prototype
function stripDangerousKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripDangerousKeys);
  if (!isTable(value)) return value;
  const clean: TomlTable = {};
  for (const [key, item] of Object.entries(value)) {
    if (isForbiddenKey(key)) continue;
    clean[key] = stripDangerousKeys(item);
  }
  return clean;
}
