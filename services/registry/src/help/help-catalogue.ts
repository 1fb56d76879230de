import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { parseHelpCatalogue, type HelpEntry } from "@agent-orchestrator/shared/bmad";
import { type AgentDefinition, type HelpCatalogueEntry } from "@agent-orchestrator/shared/wire";
import { readTextFile } from "../cache/read-text-file.js";

// a catalogue is a few dozen rows; one far larger is not one
const maxCatalogueBytes = 512 * 1024;

/** The install's help catalogue with the agent that runs each entry, and the file it came from (project-relative). */
export interface LoadedHelpCatalogue {
  entries: HelpCatalogueEntry[];
  source: string | null;
}

/**
 * Reads the help catalogue of the install at `root` (docs/bmad-releases.md "Help catalogue"): the merged
 * `<tree>/_config/bmad-help.csv` the installer writes (6.0.x onwards), else (none, or one whose rows do not
 * follow its header) every module's `<tree>/<module>/module-help.csv`. 4.x installs and bundles ship none: no entries. Each entry gets the
 * agent whose menu runs it: by skill name (6.2+), by workflow file or by the agent named in the row (6.0.x).
 */
export async function loadHelpCatalogue(root: string, agents: readonly AgentDefinition[]): Promise<LoadedHelpCatalogue> {
  for (const tree of ["_bmad", "bmad"]) {
    const merged = path.join(tree, "_config", "bmad-help.csv");
    const entries = await readCatalogue(root, merged);
    if (entries) return { entries: entries.map((entry) => withAgent(entry, agents)), source: merged };
  }
  for (const tree of ["_bmad", "bmad"]) {
    const modules = await readdir(path.join(root, tree), { withFileTypes: true }).catch((): Dirent[] => []);
    const entries: HelpEntry[] = [];
    const sources: string[] = [];
    for (const module of modules.filter((one) => one.isDirectory()).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const file = path.join(tree, module.name, "module-help.csv");
      const found = await readCatalogue(root, file);
      if (!found) continue;
      entries.push(...found);
      sources.push(file);
    }
    if (sources.length > 0) return { entries: entries.map((entry) => withAgent(entry, agents)), source: sources.join(", ") };
  }
  return { entries: [], source: null };
}

/** A catalogue's entries, or undefined when it is missing, unreadable, or its rows do not follow its header. */
async function readCatalogue(root: string, relative: string): Promise<HelpEntry[] | undefined> {
  const read = await readTextFile(path.join(root, relative), maxCatalogueBytes);
  if (!read.ok) return undefined;
  const parsed = parseHelpCatalogue(read.text);
  if (!parsed.ok) return undefined;
  // 6.5's installer wrote the merged catalogue with the 6.0 header over rows of the new layout: the phase
  // column then holds skill names. Such a file is not read; the modules' own catalogues are.
  const phased = parsed.value.filter((entry) => entry.phase === "" || knownPhase.test(entry.phase)).length;
  return phased * 2 >= parsed.value.length ? parsed.value : undefined;
}

const knownPhase = /^(\d+-[a-z-]+|anytime|plan|ship|analysis|planning|solutioning|implementation)$/i;

function withAgent(entry: HelpEntry, agents: readonly AgentDefinition[]): HelpCatalogueEntry {
  const workflow = entry.workflow?.replace(/^\{project-root\}\//, "");
  const runs = (agent: AgentDefinition) =>
    agent.menu.some((item) => item.skill === entry.skill || (workflow !== undefined && item.workflow !== undefined && item.workflow.endsWith(workflow)));
  const agent = agents.find(runs) ?? (entry.agent === undefined ? undefined : agents.find((one) => one.id.split("/").at(-1) === entry.agent));
  return agent ? { ...entry, agent_id: agent.id } : entry;
}
