import { isTable, mergeLayers, parseTomlLayer, type TomlTable } from "@agent-orchestrator/shared";
import type { OptionalFiles } from "./optional-file.js";

/** A skill's merged customization and what it makes the skill. */
export interface SkillCustomization {
  kind: "agent" | "workflow" | "skill";
  /** every layer merged */
  merged: TomlTable;
  /** the `[agent]` or `[workflow]` table for those kinds; the whole merge for a plain skill */
  table: TomlTable;
}

/**
 * Merges the customization layers of a 6.5+ skill with BMAD's rules (shared `mergeLayers`, docs/bmad-releases.md
 * "Customization layers"): `{skill-root}/customize.toml` → `<tree>/custom/<name>.toml` (team) →
 * `<tree>/custom/<name>.user.toml` (personal). A missing layer is skipped; an invalid one is skipped with a
 * note. The kind is `agent` with an `[agent]` table, `workflow` with a `[workflow]` table, else `skill`.
 */
export async function loadSkillCustomization(
  files: OptionalFiles,
  options: { skillRoot: string; name: string; configTree: string | undefined },
): Promise<SkillCustomization> {
  const paths = [`${options.skillRoot}/customize.toml`];
  if (options.configTree !== undefined) paths.push(`${options.configTree}/custom/${options.name}.toml`, `${options.configTree}/custom/${options.name}.user.toml`);
  const layers: TomlTable[] = [];
  for (const layerPath of paths) {
    const text = await files.read(layerPath);
    if (text === undefined) continue;
    const parsed = parseTomlLayer(text);
    if (parsed.ok) layers.push(parsed.value);
    else files.notes.push(`${layerPath} skipped: ${parsed.reason}`);
  }
  const merged = mergeLayers(layers);
  const agent = merged["agent"];
  if (isTable(agent)) return { kind: "agent", merged, table: agent };
  const workflow = merged["workflow"];
  if (isTable(workflow)) return { kind: "workflow", merged, table: workflow };
  return { kind: "skill", merged, table: merged };
}
