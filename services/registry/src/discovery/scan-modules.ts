import type { Dirent } from "node:fs";
import { readdir, realpath, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { mapWithConcurrency } from "@agent-orchestrator/shared/runtime";
import { type BundleInfo, type RegistryWarning } from "@agent-orchestrator/shared/wire";
import { byName, scanConcurrency, type AgentRecord, type DiscoveryContext, type SourceScan } from "./discovery-context.js";
import { moduleAgent } from "./module-agent.js";
import { loadAgent, reportOutcome } from "./load-agent.js";

/** An installed tree of modules: `bmad/` (6.0 alphas) or `_bmad/` (6.0.x onwards). */
export interface ModuleTree {
  /** the tree's folder relative to BMAD_ROOT */
  folder: string;
  /** folders of the tree that are not modules (manifests, memory, custom files, scripts) */
  skip: ReadonlySet<string>;
  /** the BMAD release that installed it, when its manifest says */
  release?: string | undefined;
  /** agent files the install's agent-manifest.csv lists, by module, relative to the module folder */
  listed: ReadonlyMap<string, readonly string[]>;
}

/** The modules found in one tree, and warnings that belong to none of them. */
export interface ModuleScanResult {
  sources: SourceScan[];
  warnings: RegistryWarning[];
  /** false when BMAD_ROOT has no such tree at all */
  found: boolean;
}

/**
 * Scans installed BMAD modules: every folder `<tree>/<module>` (byte order, at most `budget`) that has an
 * `agents/` folder or a `config.yaml`. Its agents are the files agent-manifest.csv lists for it, or else
 * `agents/*.md` (not README.md) and nested `agents/<name>/<name>.md` (docs/bmad-releases.md); an agent's
 * id is `<module>/<file name without .md>`. A module whose agents exist but whose config.yaml is missing or
 * not a YAML mapping is invalid (its agents load that file at start), and serves no agents.
 */
export async function scanModuleTree(context: DiscoveryContext, tree: ModuleTree, budget: number): Promise<ModuleScanResult> {
  let entries: Dirent[];
  try {
    entries = await readdir(join(context.rootPath, tree.folder), { withFileTypes: true });
  } catch {
    return { sources: [], warnings: [], found: false };
  }
  const candidates = entries
    .filter((entry) => !entry.name.startsWith(".") && !tree.skip.has(entry.name) && (entry.isDirectory() || entry.isSymbolicLink()))
    .sort((left, right) => byName(left.name, right.name));
  const warnings: RegistryWarning[] = [];
  if (candidates.length > budget) {
    warnings.push({ code: "LIMIT_REACHED", message: `only ${Math.max(0, budget)} module folders of ${tree.folder} are read (REGISTRY_MAX_BUNDLES counts bundles and modules)`, path: tree.folder });
  }
  const scanned = await mapWithConcurrency(candidates.slice(0, Math.max(0, budget)), scanConcurrency, (entry) => scanModule(context, tree, entry));
  return { sources: scanned.filter((source): source is SourceScan => source !== undefined), warnings, found: true };
}

async function scanModule(context: DiscoveryContext, tree: ModuleTree, entry: Dirent): Promise<SourceScan | undefined> {
  const path = `${tree.folder}/${entry.name}`;
  const info: BundleInfo = {
    name: entry.name,
    source: "module",
    type: "module",
    path,
    status: "ok",
    ...(tree.release ? { version: tree.release } : {}),
    agents: [],
    warnings: [],
  };
  if (entry.isSymbolicLink()) {
    info.status = "invalid";
    info.warnings.push({ code: "PATH_REJECTED", message: `${path} is a symbolic link; a module must be a real folder`, path });
    return { info, agents: [] };
  }
  const absolute = join(context.rootPath, path);
  const realFolder = await realpath(absolute).catch(() => undefined);
  if (!realFolder) return undefined;
  const listed = tree.listed.get(entry.name) ?? [];
  const found = listed.length > 0 ? [...listed] : await agentFilesOf(absolute);
  const configPath = `${path}/config.yaml`;
  const config = await context.moduleConfigs.load(configPath, join(absolute, "config.yaml"), realFolder);
  // a folder with neither (`bmad/docs`) is not a module at all
  if (found === undefined && !config.ok && config.code === "FILE_MISSING") return undefined;
  if (!reportOutcome(config, configPath, "BUNDLE_INVALID", info.warnings)) {
    info.status = "invalid";
    return { info, agents: [] };
  }

  let files = found ?? [];
  const { maxAgentsPerSource } = context.limits;
  if (files.length > maxAgentsPerSource) {
    info.warnings.push({ code: "LIMIT_REACHED", message: `${path} has ${files.length} agent files; only the first ${maxAgentsPerSource} are read`, path });
    files = files.slice(0, maxAgentsPerSource);
  }
  const agents: AgentRecord[] = [];
  for (const file of files) {
    const filePath = `${path}/${file}`;
    const parsed = await loadAgent(context, filePath, join(absolute, file), realFolder, info.warnings);
    if (!parsed) continue;
    agents.push(moduleAgent(parsed, { id: `${entry.name}/${basename(file, ".md")}`, module: entry.name, release: tree.release, bundlePath: path, filePath }));
  }
  if (files.length > 0 && agents.length === 0) {
    info.status = "invalid";
    info.warnings.push({ code: "AGENT_INVALID", message: `${path} has ${files.length} agent file(s) and none could be read as an agent`, path });
  }
  return { info, agents };
}

/**
 * The agent files of a module folder, relative to it, in byte order: `agents/*.md` except README.md, and
 * `agents/<name>/<name>.md` for agents that keep their own folder. Undefined when there is no `agents/`.
 */
async function agentFilesOf(moduleFolder: string): Promise<string[] | undefined> {
  const entries = await readdir(join(moduleFolder, "agents"), { withFileTypes: true }).catch(() => undefined);
  if (!entries) return undefined;
  const files: string[] = [];
  for (const entry of entries.sort((left, right) => byName(left.name, right.name))) {
    if ((entry.isFile() || entry.isSymbolicLink()) && entry.name.endsWith(".md") && entry.name.toLowerCase() !== "readme.md") {
      files.push(`agents/${entry.name}`);
    } else if (entry.isDirectory()) {
      const nested = `agents/${entry.name}/${entry.name}.md`;
      if ((await stat(join(moduleFolder, nested)).catch(() => undefined))?.isFile()) files.push(nested);
    }
  }
  return files;
}
