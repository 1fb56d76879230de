import type { Dirent } from "node:fs";
import { readdir, realpath } from "node:fs/promises";
import { join } from "node:path";
import type { AgentDefinition, BundleInfo, RegistryWarning } from "@agent-orchestrator/shared/wire";
import { type BundleManifest, type ManifestAgent, type ParsedAgent } from "@agent-orchestrator/shared/bmad";
import { mapWithConcurrency } from "@agent-orchestrator/shared/runtime";
import { byName, defaultIcon, scanConcurrency, type AgentRecord, type DiscoveryContext, type SourceScan } from "./discovery-context.js";
import { loadAgent, reportOutcome } from "./load-agent.js";

/** Where bundles live, relative to BMAD_ROOT (docs/design.md "Sources"). */
export const bundlesFolder = "bmad/custom/bundles";

/**
 * Scans `bmad/custom/bundles/*` (bundle folders in byte order, at most `maxSources`): each folder's
 * bundle.yaml and the agent files it lists (`entry_point` agents of a multi-agent bundle, the one agent of
 * a standalone bundle). A symlinked bundle folder, an invalid manifest or an unreadable agent is reported
 * and skipped; it never stops the scan. Hidden folders and loose files are ignored.
 */
export async function scanBundles(context: DiscoveryContext): Promise<{ sources: SourceScan[]; warnings: RegistryWarning[] }> {
  const folder = join(context.rootPath, bundlesFolder);
  const entries = (await readdir(folder, { withFileTypes: true }).catch(() => [] as Dirent[]))
    .filter((entry) => !entry.name.startsWith(".") && (entry.isDirectory() || entry.isSymbolicLink()))
    .sort((left, right) => byName(left.name, right.name));
  const warnings: RegistryWarning[] = [];
  const { maxSources } = context.limits;
  if (entries.length > maxSources) {
    warnings.push({
      code: "LIMIT_REACHED",
      message: `${entries.length} bundle folders found; only the first ${maxSources} are read (REGISTRY_MAX_BUNDLES)`,
      path: bundlesFolder,
    });
  }
  const sources = await mapWithConcurrency(entries.slice(0, maxSources), scanConcurrency, (entry) => scanBundle(context, entry));
  return { sources, warnings };
}

async function scanBundle(context: DiscoveryContext, entry: Dirent): Promise<SourceScan> {
  const path = `${bundlesFolder}/${entry.name}`;
  const info: BundleInfo = { name: entry.name, source: "bundle", path, status: "invalid", agents: [], warnings: [] };
  const invalid = (): SourceScan => ({ info, agents: [] });
  if (entry.isSymbolicLink()) {
    info.warnings.push({ code: "PATH_REJECTED", message: `${path} is a symbolic link; a bundle must be a real folder`, path });
    return invalid();
  }
  const absolute = join(context.rootPath, path);
  const realFolder = await realpath(absolute).catch(() => undefined);
  if (!realFolder) return invalid(); // deleted while we scanned

  const manifestPath = `${path}/bundle.yaml`;
  const loaded = await context.manifests.load(manifestPath, join(absolute, "bundle.yaml"), realFolder);
  if (!reportOutcome(loaded, manifestPath, "BUNDLE_INVALID", info.warnings)) return invalid();
  const { manifest, notes } = loaded.value;
  for (const note of notes) info.warnings.push({ code: "PARSE_NOTE", message: `${manifestPath}: ${note}`, path: manifestPath });
  Object.assign(info, { name: manifest.name, type: manifest.type, version: manifest.version, description: manifest.description });

  let listed = manifest.type === "bundle" ? manifest.agents.filter((agent) => agent.entry_point) : [manifest.agent];
  const { maxAgentsPerSource } = context.limits;
  if (listed.length > maxAgentsPerSource) {
    info.warnings.push({ code: "LIMIT_REACHED", message: `${manifestPath} lists ${listed.length} agents; only the first ${maxAgentsPerSource} are read`, path: manifestPath });
    listed = listed.slice(0, maxAgentsPerSource);
  }
  const agents: AgentRecord[] = [];
  for (const listedAgent of listed) {
    const filePath = `${path}/${listedAgent.file}`;
    const parsed = await loadAgent(context, filePath, join(absolute, listedAgent.file), realFolder, info.warnings);
    if (parsed) agents.push({ definition: bundleAgentDefinition(manifest, listedAgent, parsed, path, filePath), parsed });
  }
  // a bundle whose every agent failed serves nothing: that is what "invalid" means to an operator
  info.status = agents.length > 0 ? "ok" : "invalid";
  return { info, agents };
}

/**
 * A bundle agent: id from bundle.yaml; name, title, icon and description from bundle.yaml where it gives
 * them, else from the agent file (then the bundle's description, the id, "🤖"); everything else from the file.
 */
function bundleAgentDefinition(
  manifest: BundleManifest,
  listed: ManifestAgent,
  parsed: ParsedAgent,
  bundlePath: string,
  filePath: string,
): AgentDefinition {
  return {
    id: listed.id,
    name: listed.name?.trim() || parsed.name || listed.id,
    title: listed.title?.trim() || parsed.title,
    icon: listed.icon?.trim() || parsed.icon || defaultIcon,
    description: listed.description?.trim() || parsed.description || manifest.description,
    bundleName: manifest.name,
    source: "bundle",
    persona: parsed.persona,
    criticalActions: parsed.criticalActions,
    menu: parsed.menu,
    bundlePath,
    filePath,
    format: parsed.format,
  };
}
