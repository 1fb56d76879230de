import type { RegistryWarning } from "@agent-orchestrator/shared";
import type { DiscoveryContext } from "./discovery-context.js";
import { resolveConflicts, type Catalog } from "./resolve-conflicts.js";
import { scanBundles } from "./scan-bundles.js";
import { scanModules } from "./scan-modules.js";

/**
 * One full scan of BMAD_ROOT: bundles, then installed modules, then duplicate resolution. Unchanged files
 * come from the caches; files not seen in this scan are dropped from them. Never throws for content: every
 * problem is a warning on its source, or on the catalog when it belongs to none.
 */
export async function discoverSources(context: DiscoveryContext): Promise<Catalog> {
  const caches = [context.manifests, context.agentFiles, context.moduleConfigs];
  for (const cache of caches) cache.beginScan();
  const bundles = await scanBundles(context);
  const modules = await scanModules(context, context.limits.maxSources - bundles.sources.length);
  for (const cache of caches) cache.endScan();

  const warnings: RegistryWarning[] = [...bundles.warnings, ...modules.warnings];
  if (!modules.bmadFolderFound) {
    warnings.push({ code: "BUNDLE_INVALID", message: "BMAD_ROOT has no bmad/ folder; no agents are served until it appears", path: "bmad" });
  }
  return resolveConflicts([...bundles.sources, ...modules.sources], warnings);
}
