/**
 * `@agent-orchestrator/shared/bmad`: readers of BMAD's file formats (agent files, SKILL.md, customize.toml,
 * manifests, module config, YAML, the help catalogue). Neither a contract between our services nor process plumbing:
 * pure text in, typed values out, using `wire/` for the agent shapes it produces and `runtime/` for path containment.
 */
export { buildSkillAgent } from "./agent-skill.js";
export { BundleManifest, ManifestAgent, parseBundleManifest } from "./bundle-manifest.js";
export type { ReadManifest } from "./bundle-manifest.js";
export { criticalFiles, fileToLoad } from "./critical-file.js";
export { cell, parseCsvTable } from "./csv-table.js";
export type { CsvRow } from "./csv-table.js";
export { centralConfigLayers, customizationKind, isTable, mergeLayers, parseTomlLayer, skillOverrideLayers, tomlLayerText } from "./customization.js";
export type { TomlTable } from "./customization.js";
export { parseHelpCatalogue } from "./help-catalogue.js";
export type { HelpEntry } from "./help-catalogue.js";
export { coreModuleFolder, isInstallPlace, isInstallTreeName, isOutputVariable, isSkillHostName, mapOutputVariables, skillFileName, skillsFolderName } from "./install-layout.js";
export { checkManifestPath } from "./manifest-path.js";
export { methodOverview, type OverviewFile } from "./method-overview.js";
export { parseModuleConfig } from "./module-config.js";
export { parseAgentFile, parseAgentForCache } from "./parse-agent-file.js";
export type { ParseOutcome } from "./parse-outcome.js";
export type { ParsedAgent, SkillAgentExtras } from "./parsed-agent.js";
export { configUserOverlay, lateAnswerNames, lateAnswers, settingsCustomizationLayers, skillUserOverlay, withSettingsAnswers, withoutLateAnswers } from "./settings-merge.js";
export { listSkillFolder } from "./skill-files.js";
export { findToolSkills, findTreeSkills } from "./skill-locator.js";
export { parseSkillMd, readSkillMd } from "./skill-md.js";
export type { SkillDocument } from "./skill-md.js";
export { assertSkillName, skillNotFound } from "./skill-name.js";
export { resolveSkillText } from "./skill-text.js";
export type { SkillTextScope } from "./skill-text.js";
export { hasSkillFile } from "./skill-tree-search.js";
export { asMapping, field, scalarText } from "./yaml-values.js";
export { parseBmadYaml, parseYamlMapping } from "./yaml.js";
