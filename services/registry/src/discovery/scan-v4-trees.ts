import type { Dirent } from "node:fs";
import { readdir, realpath } from "node:fs/promises";
import { basename, join } from "node:path";
import type { BundleInfo, RegistryWarning } from "@agent-orchestrator/shared/wire";
import { byName, type AgentRecord, type DiscoveryContext, type SourceScan } from "./discovery-context.js";
import { manifestRelease } from "./install-index.js";
import { moduleAgent } from "./module-agent.js";
import { loadAgent, loadOptional } from "./load-agent.js";

/** `.bmad-core` and the expansion packs `.bmad-<pack>` that BMAD 4.x installs at the project root. */
const v4TreeName = /^\.bmad-[a-z0-9][\w-]*$/i;

/**
 * Scans BMAD 4.x trees (docs/bmad-releases.md): `.bmad-core/` is module `bmm` (so Mary is `bmm/analyst` in
 * every release) and `.bmad-<pack>/` is module `<pack>`; their agents are `agents/*.md` (markdown with one
 * YAML block). The release is `.bmad-core/install-manifest.yaml`'s `version`. Trees in byte order, at most
 * `budget`.
 */
export async function scanV4Trees(context: DiscoveryContext, budget: number): Promise<{ sources: SourceScan[]; warnings: RegistryWarning[] }> {
  const entries = (await readdir(context.rootPath, { withFileTypes: true }).catch((): Dirent[] => []))
    .filter((entry) => v4TreeName.test(entry.name) && (entry.isDirectory() || entry.isSymbolicLink()))
    .sort((left, right) => byName(left.name, right.name));
  const warnings: RegistryWarning[] = [];
  if (entries.length === 0) return { sources: [], warnings };
  if (entries.length > budget) {
    warnings.push({ code: "LIMIT_REACHED", message: `only ${Math.max(0, budget)} .bmad-* folders are read (REGISTRY_MAX_BUNDLES counts bundles and modules)`, path: "." });
  }
  const coreReal = await realpath(join(context.rootPath, ".bmad-core")).catch(() => undefined);
  const core = coreReal
    ? await loadOptional(context.yamlMappings, ".bmad-core/install-manifest.yaml", join(context.rootPath, ".bmad-core", "install-manifest.yaml"), coreReal, "BUNDLE_INVALID", warnings)
    : undefined;
  const release = manifestRelease(core);
  const sources: SourceScan[] = [];
  for (const entry of entries.slice(0, Math.max(0, budget))) {
    const source = await scanV4Tree(context, entry, release);
    if (source) sources.push(source);
  }
  return { sources, warnings };
}

async function scanV4Tree(context: DiscoveryContext, entry: Dirent, release: string | undefined): Promise<SourceScan | undefined> {
  const path = entry.name;
  const module = path === ".bmad-core" ? "bmm" : path.slice(".bmad-".length);
  const info: BundleInfo = { name: module, source: "module", type: "module", path, status: "ok", ...(release ? { version: release } : {}), agents: [], warnings: [] };
  if (entry.isSymbolicLink()) {
    info.status = "invalid";
    info.warnings.push({ code: "PATH_REJECTED", message: `${path} is a symbolic link; a BMAD folder must be a real folder`, path });
    return { info, agents: [] };
  }
  const absolute = join(context.rootPath, path);
  const realFolder = await realpath(absolute).catch(() => undefined);
  if (!realFolder) return undefined;
  let files = ((await readdir(join(absolute, "agents"), { withFileTypes: true }).catch((): Dirent[] => []))
    .filter((file) => (file.isFile() || file.isSymbolicLink()) && file.name.endsWith(".md") && file.name.toLowerCase() !== "readme.md")
    .map((file) => file.name)
    .sort(byName));
  const { maxAgentsPerSource } = context.limits;
  if (files.length > maxAgentsPerSource) {
    info.warnings.push({ code: "LIMIT_REACHED", message: `${path}/agents has ${files.length} agent files; only the first ${maxAgentsPerSource} are read`, path });
    files = files.slice(0, maxAgentsPerSource);
  }
  const agents: AgentRecord[] = [];
  for (const file of files) {
    const filePath = `${path}/agents/${file}`;
    const parsed = await loadAgent(context, filePath, join(absolute, "agents", file), realFolder, info.warnings);
    if (!parsed) continue;
    agents.push(moduleAgent(parsed, { id: `${module}/${basename(file, ".md")}`, module: module, release: release, bundlePath: path, filePath }));
  }
  if (files.length > 0 && agents.length === 0) {
    info.status = "invalid";
    info.warnings.push({ code: "AGENT_INVALID", message: `${path} has ${files.length} agent file(s) and none could be read as an agent`, path });
  }
  return { info, agents };
}
