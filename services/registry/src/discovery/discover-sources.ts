import { contextCaches, type DiscoveryContext } from "./discovery-context.js";
import { resolveConflicts, type Catalog } from "./resolve-conflicts.js";
import { scanBundles } from "./scan-bundles.js";
import { scanInstalls } from "./scan-installs.js";
import { withStartFingerprints } from "./start-fingerprint.js";

/**
 * One full scan of BMAD_ROOT: bundles, then installed BMAD (every release's layout), then duplicate
 * resolution, then the fingerprints of the agents' start files. Unchanged files come from the caches; files not seen in this scan are dropped from them.
 * Never throws for content: every problem is a warning on its source, or on the catalog when it belongs
 * to none.
 */
export async function discoverSources(context: DiscoveryContext): Promise<Catalog> {
  const caches = contextCaches(context);
  for (const cache of caches) cache.beginScan();
  const bundles = await scanBundles(context);
  const installs = await scanInstalls(context, context.limits.maxSources - bundles.sources.length);
  for (const cache of caches) cache.endScan();
  const catalog = resolveConflicts([...bundles.sources, ...installs.sources], [...bundles.warnings, ...installs.warnings]);
  return withStartFingerprints(catalog, context.rootPath);
}
