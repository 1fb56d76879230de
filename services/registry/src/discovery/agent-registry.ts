import type { AgentSummary, BundleInfo, RegistryChanged, RegistryWarning } from "@agent-orchestrator/shared/wire";
import type { DiscoveryLimits } from "../config.js";
import { discoverSources } from "./discover-sources.js";
import { createDiscoveryContext, type AgentRecord, type DiscoveryContext } from "./discovery-context.js";
import type { Catalog } from "./resolve-conflicts.js";

/** A change as the registry sees it; the service adds its instance id when it publishes it. */
export type RegistryChange = Omit<RegistryChanged, "instance">;

/**
 * The registry's memory: the last scan's catalog, answered from without touching the disk. `rescan()`
 * re-reads only files whose mtime, size or inode changed; scans never overlap, and requests that arrive
 * during a scan share the next one. Each scan that changes what is served bumps `revision` and returns
 * the change.
 */
export class AgentRegistry {
  readonly #context: DiscoveryContext;
  #catalog: Catalog = { agents: new Map(), bundles: [], warnings: [] };
  #summaries: AgentSummary[] = [];
  /** JSON of every served definition, and of every source, from the last scan: what "changed" compares */
  #agentPrints = new Map<string, string>();
  #bundlePrints = new Map<string, string>();
  #revision = 0;
  #running: Promise<unknown> = Promise.resolve();
  #queued: Promise<RegistryChange | undefined> | undefined;

  constructor(bmadRoot: string, limits: DiscoveryLimits) {
    this.#context = createDiscoveryContext(bmadRoot, limits);
  }

  /** Scans now, or after the scan in progress; returns the change, or undefined when nothing changed. */
  rescan(): Promise<RegistryChange | undefined> {
    if (this.#queued) return this.#queued;
    const next = this.#running.then(() => {
      this.#queued = undefined;
      return this.#scan();
    });
    this.#queued = next;
    this.#running = next.catch(() => undefined);
    return next;
  }

  get revision(): number {
    return this.#revision;
  }

  /** Summaries in listing order, optionally of one bundle or module only. */
  listAgents(bundle?: string): AgentSummary[] {
    return bundle === undefined ? this.#summaries : this.#summaries.filter((agent) => agent.bundleName === bundle);
  }

  getAgent(id: string): AgentRecord | undefined {
    return this.#catalog.agents.get(id);
  }

  listBundles(): { bundles: BundleInfo[]; warnings: RegistryWarning[] } {
    return { bundles: this.#catalog.bundles, warnings: this.#catalog.warnings };
  }

  async #scan(): Promise<RegistryChange | undefined> {
    const catalog = await discoverSources(this.#context);
    const agentPrints = new Map([...catalog.agents].map(([id, record]) => [id, JSON.stringify(record.definition)]));
    // a source is known by its folder; the value keeps its name for the event
    const bundlePrints = new Map(catalog.bundles.map((bundle) => [bundle.path, `${bundle.name}\n${JSON.stringify(bundle)}`]));
    bundlePrints.set("", JSON.stringify(catalog.warnings)); // catalog-wide warnings count as a change too
    const agents = diffPrints(this.#agentPrints, agentPrints);
    const sources = diffPrints(this.#bundlePrints, bundlePrints);

    this.#catalog = catalog;
    this.#summaries = [...catalog.agents.values()].map(({ definition }) => ({
      id: definition.id,
      name: definition.name,
      title: definition.title,
      icon: definition.icon,
      description: definition.description,
      bundleName: definition.bundleName,
      source: definition.source,
      ...(definition.format ? { format: definition.format } : {}),
      ...(definition.release ? { release: definition.release } : {}),
    }));
    const previousBundles = this.#bundlePrints;
    this.#agentPrints = agentPrints;
    this.#bundlePrints = bundlePrints;

    const changedSources = [...sources.added, ...sources.updated, ...sources.removed];
    if (agents.added.length + agents.removed.length + agents.updated.length + changedSources.length === 0) return undefined;
    this.#revision++;
    const nameOf = (path: string) => (bundlePrints.get(path) ?? previousBundles.get(path) ?? "").split("\n")[0] ?? "";
    return {
      revision: this.#revision,
      changedAt: new Date().toISOString(),
      ...agents,
      bundles: [...new Set(changedSources.filter((path) => path !== "").map(nameOf))],
    };
  }
}

/** Keys added, removed, and present in both with a different fingerprint. */
function diffPrints(previous: ReadonlyMap<string, string>, next: ReadonlyMap<string, string>) {
  return {
    added: [...next.keys()].filter((key) => !previous.has(key)),
    removed: [...previous.keys()].filter((key) => !next.has(key)),
    updated: [...next].filter(([key, print]) => previous.has(key) && previous.get(key) !== print).map(([key]) => key),
  };
}
