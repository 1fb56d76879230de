import type { Dirent } from "node:fs";
import { readdir, realpath } from "node:fs/promises";
import { join } from "node:path";
import type { BundleInfo, RegistryWarning } from "@agent-orchestrator/shared";
import { byName, defaultIcon, scanConcurrency, type AgentRecord, type DiscoveryContext, type SourceScan } from "./discovery-context.js";
import { loadAgent, reportOutcome } from "./load-agent.js";
import type { ParseOutcome } from "./file-parse-cache.js";
import { mapWithConcurrency } from "./map-with-concurrency.js";
import { asMapping, parseYaml } from "./safe-yaml.js";

/** Folders under `bmad/` that are not modules: the bundles' home and the installer's manifests. */
const notModules = new Set(["custom", "_cfg"]);

/** The modules found under `bmad/`, and warnings that belong to none of them. */
export interface ModuleScanResult {
  sources: SourceScan[];
  warnings: RegistryWarning[];
  /** false when BMAD_ROOT has no `bmad/` folder at all */
  bmadFolderFound: boolean;
}

/**
 * Scans installed BMAD modules: every folder `bmad/<module>` (byte order, at most `budget`) that has an
 * `agents/` folder or a `config.yaml`. Its agents are `agents/*.md` except README.md; an agent's id is
 * `<module>/<file name without .md>`. A module whose agents exist but whose config.yaml is missing or not a
 * YAML mapping is invalid (its agents load that file at start), and serves no agents.
 */
export async function scanModules(context: DiscoveryContext, budget: number): Promise<ModuleScanResult> {
  let entries: Dirent[];
  try {
    entries = await readdir(join(context.rootPath, "bmad"), { withFileTypes: true });
  } catch {
    return { sources: [], warnings: [], bmadFolderFound: false };
  }
  const candidates = entries
    .filter((entry) => !entry.name.startsWith(".") && !notModules.has(entry.name) && (entry.isDirectory() || entry.isSymbolicLink()))
    .sort((left, right) => byName(left.name, right.name));
  const warnings: RegistryWarning[] = [];
  if (candidates.length > budget) {
    warnings.push({ code: "LIMIT_REACHED", message: `only ${budget} module folders are read (REGISTRY_MAX_BUNDLES counts bundles and modules)`, path: "bmad" });
  }
  const scanned = await mapWithConcurrency(candidates.slice(0, Math.max(0, budget)), scanConcurrency, (entry) => scanModule(context, entry));
  return { sources: scanned.filter((source): source is SourceScan => source !== undefined), warnings, bmadFolderFound: true };
}

async function scanModule(context: DiscoveryContext, entry: Dirent): Promise<SourceScan | undefined> {
  const path = `bmad/${entry.name}`;
  const info: BundleInfo = { name: entry.name, source: "module", type: "module", path, status: "ok", agents: [], warnings: [] };
  if (entry.isSymbolicLink()) {
    info.status = "invalid";
    info.warnings.push({ code: "PATH_REJECTED", message: `${path} is a symbolic link; a module must be a real folder`, path });
    return { info, agents: [] };
  }
  const absolute = join(context.rootPath, path);
  const realFolder = await realpath(absolute).catch(() => undefined);
  if (!realFolder) return undefined;
  const agentFiles = await readdir(join(absolute, "agents"), { withFileTypes: true }).catch(() => undefined);
  const configPath = `${path}/config.yaml`;
  const config = await context.moduleConfigs.load(configPath, join(absolute, "config.yaml"), realFolder);
  // a folder with neither (`bmad/docs`) is not a module at all
  if (!agentFiles && !config.ok && config.code === "FILE_MISSING") return undefined;
  if (!reportOutcome(config, configPath, "BUNDLE_INVALID", info.warnings)) {
    info.status = "invalid";
    return { info, agents: [] };
  }

  let files = (agentFiles ?? [])
    .filter((file) => (file.isFile() || file.isSymbolicLink()) && file.name.endsWith(".md") && file.name.toLowerCase() !== "readme.md")
    .map((file) => file.name)
    .sort(byName);
  const { maxAgentsPerSource } = context.limits;
  if (files.length > maxAgentsPerSource) {
    info.warnings.push({ code: "LIMIT_REACHED", message: `${path}/agents has ${files.length} agent files; only the first ${maxAgentsPerSource} are read`, path });
    files = files.slice(0, maxAgentsPerSource);
  }
  const agents: AgentRecord[] = [];
  for (const fileName of files) {
    const filePath = `${path}/agents/${fileName}`;
    const parsed = await loadAgent(context, filePath, join(absolute, "agents", fileName), realFolder, info.warnings);
    if (!parsed) continue;
    const id = `${entry.name}/${fileName.slice(0, -".md".length)}`;
    agents.push({
      definition: {
        id,
        name: parsed.name || parsed.id || id,
        title: parsed.title,
        icon: parsed.icon || defaultIcon,
        description: parsed.description || parsed.title,
        bundleName: entry.name,
        source: "module",
        persona: parsed.persona,
        criticalActions: parsed.criticalActions,
        menu: parsed.menu,
        bundlePath: path,
        filePath,
        format: parsed.format,
      },
      parsed,
    });
  }
  if (files.length > 0 && agents.length === 0) info.status = "invalid";
  return { info, agents };
}

/** A module's config.yaml must be a YAML mapping; its values are read by the orchestrator, not here. */
export function parseModuleConfig(text: string): ParseOutcome<true> {
  const parsed = parseYaml(text);
  if (!parsed.ok) return { ok: false, reason: `config.yaml is not valid YAML: ${parsed.error}` };
  return asMapping(parsed.value) ? { ok: true, value: true } : { ok: false, reason: "config.yaml is not a YAML mapping" };
}
