import { realpath } from "node:fs/promises";
import { join } from "node:path";
import type { BundleInfo, RegistryWarning } from "@agent-orchestrator/shared/wire";
import { cell } from "@agent-orchestrator/shared/bmad";
import type { DiscoveryContext, SourceScan } from "./discovery-context.js";
import { manifestRelease, readInstallIndex, type InstallIndex } from "./install-index.js";
import { loadOptional } from "./load-agent.js";
import { scanModuleTree, type ModuleScanResult } from "./scan-modules.js";
import { isAgentFilePath, scanSkillAgents } from "./scan-skill-agents.js";
import { scanV4Trees } from "./scan-v4-trees.js";

/** Folders of `_bmad/` that are not modules (docs/bmad-releases.md). */
const notModules = new Set(["_config", "_memory", "custom", "scripts", "render"]);
/** Folders of the 6.0-alpha `bmad/` that are not modules: the bundles' home and the installer's manifests. */
const notAlphaModules = new Set(["custom", "_cfg"]);

/**
 * Scans every BMAD install layout at BMAD_ROOT (docs/design.md "Sources", docs/bmad-releases.md), newest layout
 * first so that a project caught mid-upgrade serves its new agents: `_bmad/` modules (XML agents, plus the
 * skills-era agents of the tool folders, which join the `_bmad/<module>` source of their module), the
 * 6.0-alpha `bmad/` modules, then 4.x `.bmad-core/` and `.bmad-<pack>/`. Warns once, naming every layout
 * looked for, when none is there.
 */
export async function scanInstalls(context: DiscoveryContext, budget: number): Promise<{ sources: SourceScan[]; warnings: RegistryWarning[] }> {
  const warnings: RegistryWarning[] = [];
  const currentReal = await realpath(join(context.rootPath, "_bmad")).catch(() => undefined);
  const index = currentReal ? await readInstallIndex(context, "_bmad", currentReal, warnings) : undefined;
  const listed = listedAgentFiles(index);
  const current = await scanModuleTree(context, { folder: "_bmad", skip: notModules, release: index?.release, listed }, budget);
  for (const [module, files] of listed) {
    if (current.sources.some((source) => source.info.name === module)) continue;
    warnings.push({ code: "AGENT_INVALID", message: `_bmad/_config/agent-manifest.csv lists ${files.length} agent(s) of module ${module}, whose folder _bmad/${module} is missing`, path: "_bmad/_config/agent-manifest.csv" });
  }
  const alpha = await scanModuleTree(context, { folder: "bmad", skip: notAlphaModules, release: await alphaRelease(context, warnings), listed: new Map() }, budget - current.sources.length);
  const v4 = await scanV4Trees(context, budget - current.sources.length - alpha.sources.length);
  const xmlSources = [...current.sources, ...alpha.sources, ...v4.sources];
  const agentFiles = new Set(xmlSources.flatMap((source) => source.agents.map((record) => record.definition.filePath)));
  const skills = await scanSkillAgents(context, { folder: "_bmad", realPath: currentReal, index, agentFiles });

  const currentSources = [...current.sources];
  for (const [module, found] of [...skills.modules].sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0))) {
    let source = currentSources.find((candidate) => candidate.info.name === module);
    if (!source) {
      const info: BundleInfo = { name: module, source: "module", type: "module", path: `_bmad/${module}`, status: "ok", ...(index?.release ? { version: index.release } : {}), agents: [], warnings: [] };
      source = { info, agents: [] };
      currentSources.push(source);
    }
    source.info.warnings.push(...found.warnings);
    const room = context.limits.maxAgentsPerSource - source.agents.length;
    if (source.info.status === "ok" && found.agents.length > room) {
      source.info.warnings.push({ code: "LIMIT_REACHED", message: `${source.info.path} has ${source.agents.length + found.agents.length} agents; only the first ${context.limits.maxAgentsPerSource} are served`, path: source.info.path });
      source.agents.push(...found.agents.slice(0, Math.max(0, room)));
    } else if (source.info.status === "ok") source.agents.push(...found.agents);
    else if (found.agents.length > 0) {
      source.info.warnings.push({ code: "BUNDLE_INVALID", message: `${source.info.path} is invalid, so its ${found.agents.length} skill agent(s) are not served`, path: source.info.path });
    }
  }
  const sources = [...currentSources, ...alpha.sources, ...v4.sources];
  for (const source of sources) {
    if (source.info.status === "ok" && source.agents.length === 0 && source.info.warnings.length === 0) {
      source.info.warnings.push({ code: "PARSE_NOTE", message: `${source.info.path} serves no agents: it has no agent files and no installed skill agent belongs to it`, path: source.info.path });
    }
  }
  warnings.push(...current.warnings, ...alpha.warnings, ...v4.warnings, ...skills.warnings);
  if (!anyInstall(current, alpha, v4.sources.length, skills.modules.size)) {
    warnings.push({
      code: "BUNDLE_INVALID",
      message: "BMAD_ROOT holds no BMAD install: looked for _bmad/ (6.0.x onwards), bmad/ (6.0 alphas), .bmad-core/ or .bmad-<pack>/ (4.x) and agent skills in .<tool>/skills/; no agents are served until one appears",
      path: ".",
    });
  }
  return { sources, warnings };
}

function anyInstall(current: ModuleScanResult, alpha: ModuleScanResult, v4Trees: number, skillModules: number): boolean {
  return current.found || alpha.found || v4Trees > 0 || skillModules > 0;
}

/** agent-manifest.csv rows that name XML agent files, by module, relative to the module folder. */
function listedAgentFiles(index: InstallIndex | undefined): Map<string, string[]> {
  const listed = new Map<string, string[]>();
  for (const row of index?.agentRows ?? []) {
    const path = cell(row, "path").replace(/^\{project-root\}\//, "");
    const match = /^_bmad\/([^/]+)\/(.+)$/.exec(path);
    if (!match || !isAgentFilePath(path) || match[2]?.split("/").includes("..")) continue;
    const module = match[1] as string;
    const files = listed.get(module) ?? [];
    if (!files.includes(match[2] as string)) files.push(match[2] as string);
    listed.set(module, files);
  }
  return listed;
}

/** The 6.0-alpha release from `bmad/_cfg/manifest.yaml`, when there is one. */
async function alphaRelease(context: DiscoveryContext, warnings: RegistryWarning[]): Promise<string | undefined> {
  const real = await realpath(join(context.rootPath, "bmad")).catch(() => undefined);
  if (!real) return undefined;
  const manifest = await loadOptional(context.yamlMappings, "bmad/_cfg/manifest.yaml", join(context.rootPath, "bmad", "_cfg", "manifest.yaml"), real, "BUNDLE_INVALID", warnings);
  return manifestRelease(manifest);
}
