import { customizationKind, mergeLayers, settingsCustomizationLayers, skillOverrideLayers, type TomlTable } from "@agent-orchestrator/shared/bmad";
import { type SettingsLayers } from "@agent-orchestrator/shared/wire";
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
 * `<tree>/custom/<name>.user.toml` (personal), then the chat's project's and its member's layers from the settings
 * (docs/settings.md). A missing layer is skipped; an invalid one is skipped with a note. The kind is `agent` with an
 * `[agent]` table, `workflow` with a `[workflow]` table, else `skill`.
 */
export async function loadSkillCustomization(
  files: OptionalFiles,
  options: { skillRoot: string; name: string; configTree: string | undefined; settings?: SettingsLayers | undefined },
): Promise<SkillCustomization> {
  const { configTree } = options;
  const overrides = configTree === undefined ? [] : skillOverrideLayers(options.name).map((layer) => `${configTree}/${layer}`);
  const installed = await files.tomlLayers([`${options.skillRoot}/customize.toml`, ...overrides]);
  const merged = mergeLayers([...installed, ...settingsCustomizationLayers(options.settings, options.name)]);
  return { ...customizationKind(merged), merged };
}
