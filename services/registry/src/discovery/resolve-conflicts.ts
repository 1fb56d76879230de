import type { BundleInfo, RegistryWarning } from "@agent-orchestrator/shared/wire";
import type { AgentRecord, SourceScan } from "./discovery-context.js";

/** What the registry serves after one scan. */
export interface Catalog {
  /** by agent id, in listing order */
  agents: Map<string, AgentRecord>;
  bundles: BundleInfo[];
  /** warnings that belong to no single source */
  warnings: RegistryWarning[];
}

/**
 * Makes bundle names and agent ids unique, deterministically (docs/security.md case 87: never last-writer-wins).
 *
 * The rule: sources are taken in a fixed order, bundles (`bmad/custom/bundles/*`) before installed modules,
 * and installed modules newest layout first (`_bmad/*` with its skill agents, then `bmad/*`, then 4.x
 * `.bmad-*`), each group in byte order of its folder path; inside a source, agents in bundle.yaml order
 * (bundles) or file order (modules, then their skill agents by skill name). The first source to claim a name, and the first agent to claim
 * an id, keep it. A later source with a taken name is left out whole; a later agent with a taken id is left
 * out alone; each loser gets a BUNDLE_CONFLICT warning naming the winner. Only sources that serve agents
 * (status ok) claim names, so a broken bundle cannot shadow a working one. (Bundle agent ids are plain
 * tokens and module agent ids are `<module>/<name>`, so in practice ids clash between bundles, and a
 * bundle named like a module, e.g. `bmm`, hides that module.)
 *
 * `sources` must already be in that order, as the scanners return them.
 */
export function resolveConflicts(sources: readonly SourceScan[], warnings: RegistryWarning[]): Catalog {
  const agents = new Map<string, AgentRecord>();
  const owners = new Map<string, string>(); // agent id → winning file
  const names = new Map<string, string>(); // source name → winning folder
  const bundles: BundleInfo[] = [];

  for (const source of sources) {
    const info: BundleInfo = { ...source.info, agents: [], warnings: [...source.info.warnings] };
    bundles.push(info);
    if (info.status !== "ok") continue;
    const nameOwner = names.get(info.name);
    if (nameOwner !== undefined) {
      info.status = "invalid";
      info.warnings.push({ code: "BUNDLE_CONFLICT", message: `the name "${info.name}" is already used by ${nameOwner}; ${info.path} is left out`, path: info.path });
      continue;
    }
    names.set(info.name, info.path);
    for (const record of source.agents) {
      const { id, filePath } = record.definition;
      const winner = owners.get(id);
      if (winner !== undefined) {
        info.warnings.push({ code: "BUNDLE_CONFLICT", message: `agent id "${id}" is already served from ${winner}; ${filePath} is left out`, path: filePath });
        continue;
      }
      owners.set(id, filePath);
      agents.set(id, record);
      info.agents.push(id);
    }
  }
  return { agents, bundles, warnings };
}
