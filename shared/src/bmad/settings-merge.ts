import { getOwn } from "../wire/get-own.js";
import type { SettingsLayers } from "../wire/settings/bmad-settings.js";
import { isTable, mergeLayers, type TomlTable } from "./customization.js";

/**
 * BMAD's settings merged over an install (docs/settings.md "How the layers merge"): the install's answers, then the
 * project's, then the member's, each answer of a later layer replacing the earlier one.
 */
export function withSettingsAnswers(installed: Readonly<Record<string, string>>, layers: SettingsLayers | undefined): Record<string, string> {
  if (layers === undefined) return { ...installed };
  return { ...installed, ...layers.project.bmad, ...layers.member.bmad };
}

/** The answers BMAD asks per person and per project: whatever a chat's settings say, they may differ between chats. */
const personalAnswers = ["user_name", "communication_language", "document_output_language", "user_skill_level", "project_name"] as const;

/**
 * The names of a chat's answers that may differ from chat to chat: BMAD's per-person and per-project answers and any
 * other the project's or member's settings set. A system prompt names them as `{name}` and lists their values once,
 * at its end, so all before is the same for everyone (docs/settings.md "Prompt caching"). None when the settings
 * give no answer at all (one local user in their personal project): the install's answers are everyone's there.
 */
export function lateAnswerNames(layers: SettingsLayers | undefined): ReadonlySet<string> {
  if (layers === undefined || Object.keys(layers.project.bmad).length + Object.keys(layers.member.bmad).length === 0) return new Set();
  return new Set([...personalAnswers, ...Object.keys(layers.project.bmad), ...Object.keys(layers.member.bmad)]);
}

/** `variables` without the names in `late`, which stay `{name}` wherever they are substituted. */
export function withoutLateAnswers(variables: Readonly<Record<string, string>>, late: ReadonlySet<string>): Record<string, string> {
  return Object.fromEntries(Object.entries(variables).filter(([name]) => !late.has(name)));
}

/** The values of the names in `late` that `variables` holds. */
export function lateAnswers(variables: Readonly<Record<string, string>>, late: ReadonlySet<string>): Record<string, string> {
  return Object.fromEntries(Object.entries(variables).filter(([name]) => late.has(name)));
}

/**
 * A skill's customization layers from the settings, in merge order after the install's own three
 * (`customize.toml` → `_bmad/custom/<skill>.toml` → `….user.toml`): the project's (a team layer per project), then
 * the member's (a personal layer that follows them into every project).
 */
export function settingsCustomizationLayers(layers: SettingsLayers | undefined, skill: string): TomlTable[] {
  if (layers === undefined) return [];
  return [getOwn(layers.project.customize, skill), getOwn(layers.member.customize, skill)].filter(isTable);
}

/**
 * What `_bmad/custom/config.user.toml` must hold so BMAD's own resolver (`resolve_config.py`, four layers, the last
 * one this file) gives the merged answers: the install's file with every answer of the settings set in `[core]`
 * and in each `[modules.<name>]` of the install's merged config that has its own value for it (a module's value
 * wins over `[core]` in BMAD's reading).
 */
export function configUserOverlay(installMerged: TomlTable, installUserFile: TomlTable, answers: Readonly<Record<string, string>>): TomlTable {
  const modules = isTable(installMerged["modules"]) ? installMerged["modules"] : {};
  const moduleAnswers: TomlTable = {};
  for (const [module, table] of Object.entries(modules)) {
    if (!isTable(table)) continue;
    const overridden = Object.fromEntries(Object.entries(answers).filter(([key]) => Object.hasOwn(table, key)));
    if (Object.keys(overridden).length > 0) moduleAnswers[module] = overridden;
  }
  const overlay: TomlTable = { core: { ...answers }, ...(Object.keys(moduleAnswers).length > 0 ? { modules: moduleAnswers } : {}) };
  return mergeLayers([installUserFile, overlay]);
}

/** A skill's personal layer with the settings' layers merged over it: what `_bmad/custom/<skill>.user.toml` must hold. */
export function skillUserOverlay(installUserFile: TomlTable | undefined, layers: SettingsLayers | undefined, skill: string): TomlTable | undefined {
  const added = settingsCustomizationLayers(layers, skill);
  if (added.length === 0) return undefined;
  return mergeLayers([installUserFile ?? {}, ...added]);
}
