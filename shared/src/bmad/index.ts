/**
 * `@agent-orchestrator/shared/bmad`: readers of BMAD's file formats (agent files, SKILL.md, customize.toml,
 * manifests, module config, YAML, the help catalogue). Neither a contract between our services nor process plumbing:
 * pure text in, typed values out, using `wire/` for the agent shapes it produces and `runtime/` for path containment.
 */
export { buildSkillAgent } from "./agent-skill.js";
export type { SkillAgentInputs } from "./agent-skill.js";
export { BundleManifest, ManifestAgent, parseBundleManifest } from "./bundle-manifest.js";
export type { ReadManifest } from "./bundle-manifest.js";
export { criticalFiles, fileToLoad } from "./critical-file.js";
export { cell, parseCsvTable } from "./csv-table.js";
export type { CsvRow } from "./csv-table.js";
export { centralConfigLayers, customizationKind, isTable, mergeLayers, parseTomlLayer, skillOverrideLayers, structuralMerge, tomlLayerText } from "./customization.js";
export type { TomlTable } from "./customization.js";
export { readFrontMatter, splitFrontMatter } from "./front-matter.js";
export type { FrontMatter, SplitFrontMatter } from "./front-matter.js";
export { parseHelpCatalogue } from "./help-catalogue.js";
export type { HelpEntry } from "./help-catalogue.js";
export { coreModuleFolder, isInstallPlace, isInstallTreeName, isOutputVariable, isSkillHostName, mapOutputVariables, skillFileName, skillsFolderName } from "./install-layout.js";
export { checkManifestPath } from "./manifest-path.js";
export type { ManifestPathCheck } from "./manifest-path.js";
export { methodOverview } from "./method-overview.js";
export { parseModuleConfig } from "./module-config.js";
export { parseAgentFile, parseAgentForCache } from "./parse-agent-file.js";
export type { ParseOutcome } from "./parse-outcome.js";
export { buildMenuItem, emptyPersona, menuTargetFields, readAgentNaming } from "./parsed-agent.js";
export type { AgentNaming, MenuHandler, MenuTargetField, ParseAgentResult, ParseNote, ParsedAgent, SkillAgentExtras } from "./parsed-agent.js";
export { configUserOverlay, lateAnswerNames, lateAnswers, settingsCustomizationLayers, skillUserOverlay, withSettingsAnswers, withoutLateAnswers } from "./settings-merge.js";
export { listSkillFolder, skillFileLimits } from "./skill-files.js";
export { findToolSkills, findTreeSkills } from "./skill-locator.js";
export type { SkillCandidate, ToolSkillSearch } from "./skill-locator.js";
export { parseSkillMd, readSkillMd } from "./skill-md.js";
export type { SkillDocument } from "./skill-md.js";
export { assertSkillName, closeNames, skillNotFound } from "./skill-name.js";
export { renderValue, resolveSkillText } from "./skill-text.js";
export type { SkillTextScope } from "./skill-text.js";
export { hasSkillFile, skillFoldersUnder, treeSearchDepth, treeSearchMaxFolders } from "./skill-tree-search.js";
export { asMapping, field, flattenText, scalarText, textList } from "./yaml-values.js";
export { parseBmadYaml, parseYamlMapping, yamlAliasLimit } from "./yaml.js";
export type { YamlResult } from "./yaml.js";
