import type { Dirent } from "node:fs";
import { readdir, readFile, realpath } from "node:fs/promises";
import path from "node:path";
import { isInstallTreeName, isOutputVariable, isSkillHostName, parseYamlMapping, skillsFolderName } from "@agent-orchestrator/shared/bmad";
import { relativeInside } from "@agent-orchestrator/shared/runtime";
import { isProtectedSegment } from "../paths/protected-names.js";

/** One folder of the layout: where the model names it (`<project>/_bmad`) and where it really is. */
export interface LayoutRoot {
  kind: "tree" | "skills" | "knowledge";
  lexical: string;
  real: string;
}

/** The output variables (`*_artifacts`) one module config of a tree names, as written. */
export interface ModuleOutputs {
  /** the tree's realpath */
  tree: string;
  module: string;
  variables: Record<string, string>;
}

/**
 * What an installed BMAD project holds at its root, as absolute real paths: its BMAD trees (`_bmad/`, `bmad/`,
 * `.bmad-core/`, `.bmad-<pack>/`), its skill folders (`.<tool>/skills/`), and the project knowledge folders
 * its module configs name (`project_knowledge`, docs/design.md "Variables"). These are what the model may read
 * besides its session folder, and what scripts may run from (docs/bmad-releases.md). `roots` has the same
 * folders with their lexical paths too; `outputs` the output variables of each module config.
 */
export interface ProjectLayout {
  trees: string[];
  skillFolders: string[];
  knowledge: string[];
  roots: LayoutRoot[];
  outputs: ModuleOutputs[];
}

/**
 * Reads the layout of `projectRoot` (a realpath). Symbolic links are followed only when they stay inside the
 * project root; a protected folder (`.config`, `.ssh`) never hosts skills; a knowledge folder that is the project root itself, or names a BMAD tree, is ignored (it would
 * open the whole project).
 */
export async function detectProjectLayout(projectRoot: string): Promise<ProjectLayout> {
  const entries = await readdir(projectRoot, { withFileTypes: true }).catch((): Dirent[] => []);
  const roots: LayoutRoot[] = [];
  for (const entry of entries) {
    if (isInstallTreeName(entry.name)) {
      const lexical = path.join(projectRoot, entry.name);
      const real = await insideRealPath(projectRoot, lexical);
      if (real) roots.push({ kind: "tree", lexical, real });
    } else if (isSkillHostName(entry.name) && !isProtectedSegment(entry.name)) {
      const lexical = path.join(projectRoot, entry.name, skillsFolderName);
      const real = await insideRealPath(projectRoot, lexical);
      if (real) roots.push({ kind: "skills", lexical, real });
    }
  }
  const trees = roots.filter((root) => root.kind === "tree");
  const outputs: ModuleOutputs[] = [];
  const knowledge = new Map<string, LayoutRoot>();
  for (const tree of trees) {
    for (const { module, config } of await moduleConfigs(tree.real)) {
      const variables = Object.fromEntries(
        Object.entries(config).filter((entry): entry is [string, string] => isOutputVariable(entry[0]) && typeof entry[1] === "string"),
      );
      outputs.push({ tree: tree.real, module, variables });
      const value = config["project_knowledge"];
      if (typeof value !== "string") continue;
      const relative = value.trim().replace(/^\{project[-_]root\}\/?/, "").replace(/^\.\//, "");
      if (relative === "" || relative.includes("{") || path.isAbsolute(relative)) continue;
      const lexical = path.resolve(projectRoot, relative);
      // a knowledge folder may be created after start (the installer does not make docs/): plan it by its parent
      const real = await insideRealPath(projectRoot, lexical, { allowMissing: true });
      if (real && real !== projectRoot && !trees.some((other) => relativeInside(real, other.real) !== undefined)) {
        knowledge.set(real, { kind: "knowledge", lexical, real });
      }
    }
  }
  roots.push(...knowledge.values());
  roots.sort((a, b) => (a.real < b.real ? -1 : a.real > b.real ? 1 : 0));
  const realOf = (kind: LayoutRoot["kind"]) => roots.filter((root) => root.kind === kind).map((root) => root.real);
  return { trees: realOf("tree"), skillFolders: realOf("skills"), knowledge: realOf("knowledge"), roots, outputs };
}

/** The mapping of every module config of a tree (`<tree>/<module>/config.yaml`), by module folder name. */
async function moduleConfigs(tree: string): Promise<Array<{ module: string; config: Record<string, unknown> }>> {
  const modules = await readdir(tree, { withFileTypes: true }).catch((): Dirent[] => []);
  const configs: Array<{ module: string; config: Record<string, unknown> }> = [];
  for (const module of modules.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (!module.isDirectory()) continue;
    const text = await readFile(path.join(tree, module.name, "config.yaml"), "utf8").catch(() => undefined);
    if (text === undefined || text.length > 256 * 1024) continue;
    // an unreadable config names no folder; the registry reports the file
    const parsed = parseYamlMapping(text);
    if (parsed.ok) configs.push({ module: module.name, config: parsed.value });
  }
  return configs;
}

/**
 * The realpath of `candidate` when it lies inside the project root. With `allowMissing`, a folder that does not
 * exist yet gets the realpath of its nearest existing parent plus the missing names: a read below it is still
 * checked against that path after its own realpath, so a symlink created there later cannot lead out.
 */
async function insideRealPath(projectRoot: string, candidate: string, options: { allowMissing?: boolean } = {}): Promise<string | undefined> {
  let existing = candidate;
  const missing: string[] = [];
  for (;;) {
    const real = await realpath(existing).catch(() => undefined);
    if (real !== undefined) {
      const planned = path.join(real, ...missing);
      return relativeInside(projectRoot, planned) !== undefined ? planned : undefined;
    }
    const parent = path.dirname(existing);
    if (!options.allowMissing || parent === existing) return undefined;
    missing.unshift(path.basename(existing));
    existing = parent;
  }
}
