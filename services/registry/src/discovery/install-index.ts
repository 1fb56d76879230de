import { join } from "node:path";
import { asMapping, cell, centralConfigLayers, field, isTable, mergeLayers, scalarText, type CsvRow, type TomlTable } from "@agent-orchestrator/shared/bmad";
import { type RegistryWarning } from "@agent-orchestrator/shared/wire";
import type { DiscoveryContext } from "./discovery-context.js";
import type { FileParseCache } from "../cache/file-parse-cache.js";
import { loadOptional } from "./load-agent.js";

/** What an installed `_bmad/` tree says about itself (docs/bmad-releases.md). */
export interface InstallIndex {
  /** the release that installed it (`_config/manifest.yaml` `installation.version`) */
  release?: string | undefined;
  /** `_config/agent-manifest.csv` rows (6.0.x-6.4): XML agent files, or skill agents by skill name */
  agentRows: CsvRow[];
  /** skill name → module, from `_config/skill-manifest.csv` */
  skillModules: ReadonlyMap<string, string>;
  /** `[agents.<skill>]` of the merged `config.toml` layers (6.5+): module, name, title, icon, description */
  agentDescriptors: ReadonlyMap<string, TomlTable>;
}


/**
 * Reads the manifests of the installed tree `folder` (`_bmad`, whose realpath is `realTree`). Every file
 * is optional; one that is present but unreadable or invalid is reported in `warnings` and skipped.
 */
export async function readInstallIndex(context: DiscoveryContext, folder: string, realTree: string, warnings: RegistryWarning[]): Promise<InstallIndex> {
  const absolute = join(context.rootPath, folder);
  const optional = <T>(cache: FileParseCache<T>, path: string) =>
    loadOptional(cache, `${folder}/${path}`, join(absolute, path), realTree, "BUNDLE_INVALID", warnings);

  const manifest = await optional(context.yamlMappings, "_config/manifest.yaml");
  const agentRows = (await optional(context.csvTables, "_config/agent-manifest.csv")) ?? [];
  const skillRows = (await optional(context.csvTables, "_config/skill-manifest.csv")) ?? [];
  const layers: TomlTable[] = [];
  for (const layer of centralConfigLayers) {
    const table = await optional(context.tomlLayers, layer);
    if (table) layers.push(table);
  }
  const agents = mergeLayers(layers)["agents"];
  const agentDescriptors = new Map<string, TomlTable>();
  if (isTable(agents)) for (const [skill, descriptor] of Object.entries(agents)) if (isTable(descriptor)) agentDescriptors.set(skill, descriptor);

  const skillModules = new Map<string, string>();
  for (const row of skillRows) {
    const module = cell(row, "module");
    for (const name of [cell(row, "name"), cell(row, "canonicalId")]) if (name !== "" && module !== "" && !skillModules.has(name)) skillModules.set(name, module);
  }
  return { release: manifestRelease(manifest), agentRows, skillModules, agentDescriptors };
}

/** `installation.version` (6.x `_config/manifest.yaml`) or a top-level `version` (4.x `install-manifest.yaml`). */
export function manifestRelease(manifest: Record<string, unknown> | undefined): string | undefined {
  const version = scalarText(field(asMapping(field(manifest, "installation")), "version")) || scalarText(field(manifest, "version"));
  return version === "" ? undefined : version;
}
