import { resolve } from "node:path";
import { parseAgentForCache, parseBundleManifest, parseCsvTable, parseModuleConfig, parseSkillMd, parseTomlLayer, parseYamlMapping, type CsvRow, type ParsedAgent, type ReadManifest, type SkillDocument, type TomlTable } from "@agent-orchestrator/shared/bmad";
import { type AgentDefinition, type BundleInfo } from "@agent-orchestrator/shared/wire";
import type { DiscoveryLimits } from "../config.js";
import { FileParseCache } from "../cache/file-parse-cache.js";

/** An agent as served: the definition clients get, and the parse the activation document is built from. */
export interface AgentRecord {
  definition: AgentDefinition;
  parsed: ParsedAgent;
}

/** One scanned bundle or module, before duplicate names and ids are resolved across sources. */
export interface SourceScan {
  info: BundleInfo;
  agents: AgentRecord[];
}

/** What a scan needs: where to look, the caps, and the parse caches that live from scan to scan. */
export interface DiscoveryContext {
  /** absolute BMAD_ROOT */
  rootPath: string;
  limits: DiscoveryLimits;
  manifests: FileParseCache<ReadManifest>;
  agentFiles: FileParseCache<ParsedAgent>;
  moduleConfigs: FileParseCache<true>;
  /** installer manifests read as YAML mappings (`install-manifest.yaml`, `_config/manifest.yaml`, `bmad-skill-manifest.yaml`) */
  yamlMappings: FileParseCache<Record<string, unknown>>;
  /** `_config/*-manifest.csv` */
  csvTables: FileParseCache<CsvRow[]>;
  /** customization layers and `_bmad/config.toml` layers */
  tomlLayers: FileParseCache<TomlTable>;
  skillDocuments: FileParseCache<SkillDocument>;
}

/** A context over `bmadRoot` with empty caches. */
export function createDiscoveryContext(bmadRoot: string, limits: DiscoveryLimits): DiscoveryContext {
  return {
    rootPath: resolve(bmadRoot),
    limits,
    manifests: new FileParseCache(parseBundleManifest, limits.maxFileBytes),
    agentFiles: new FileParseCache(parseAgentForCache, limits.maxFileBytes),
    moduleConfigs: new FileParseCache(parseModuleConfig, limits.maxFileBytes),
    yamlMappings: new FileParseCache(parseYamlMapping, limits.maxFileBytes),
    csvTables: new FileParseCache(parseCsvTable, limits.maxFileBytes),
    tomlLayers: new FileParseCache(parseTomlLayer, limits.maxFileBytes),
    skillDocuments: new FileParseCache(parseSkillMd, limits.maxFileBytes),
  };
}

/** Every parse cache of a context, for starting and ending a scan. */
export function contextCaches(context: DiscoveryContext): { beginScan(): void; endScan(): void }[] {
  return [context.manifests, context.agentFiles, context.moduleConfigs, context.yamlMappings, context.csvTables, context.tomlLayers, context.skillDocuments];
}

/** How many bundles or modules are read at once: enough to overlap file I/O, few enough to stay polite. */
export const scanConcurrency = 16;

/** Byte-wise order, the same on every machine and locale. */
export function byName(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

/** The icon of an agent that names none. */
export const defaultIcon = "🤖";
