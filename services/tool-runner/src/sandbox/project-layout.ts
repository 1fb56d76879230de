import type { Dirent } from "node:fs";
import { readdir, readFile, realpath } from "node:fs/promises";
import path from "node:path";
import { isInstallTreeName, isSkillHostName, skillsFolderName } from "@agent-orchestrator/shared";
import { parse as parseYaml } from "yaml";
import { relativeInside } from "./containment.js";

/**
 * What an installed BMAD project holds at its root, as absolute real paths: its BMAD trees (`_bmad/`, `bmad/`,
 * `.bmad-core/`, `.bmad-<pack>/`), its skill folders (`.<tool>/skills/`), and the project knowledge folders
 * its module configs name (`project_knowledge`, DESIGN §2 decision 7). These are what the model may read
 * besides its session folder, and what scripts may run from (docs/bmad-releases.md).
 */
export interface ProjectLayout {
  trees: string[];
  skillFolders: string[];
  knowledge: string[];
}

/**
 * Reads the layout of `projectRoot` (a realpath). Symbolic links are followed only when they stay inside the
 * project root; a knowledge folder that is the project root itself, or names a BMAD tree, is ignored (it would
 * open the whole project).
 */
export async function detectProjectLayout(projectRoot: string): Promise<ProjectLayout> {
  const entries = await readdir(projectRoot, { withFileTypes: true }).catch((): Dirent[] => []);
  const trees: string[] = [];
  const skillFolders: string[] = [];
  for (const entry of entries) {
    if (isInstallTreeName(entry.name)) {
      const real = await insideRealPath(projectRoot, path.join(projectRoot, entry.name));
      if (real) trees.push(real);
    } else if (isSkillHostName(entry.name)) {
      const real = await insideRealPath(projectRoot, path.join(projectRoot, entry.name, skillsFolderName));
      if (real) skillFolders.push(real);
    }
  }
  const knowledge = new Set<string>();
  for (const tree of trees) {
    for (const value of await knowledgeValues(tree)) {
      const relative = value.replace(/^\{project[-_]root\}\/?/, "").replace(/^\.\//, "");
      if (relative === "" || relative.includes("{") || path.isAbsolute(relative)) continue;
      const real = await insideRealPath(projectRoot, path.resolve(projectRoot, relative));
      if (real && real !== projectRoot && !trees.some((tree) => relativeInside(real, tree) !== undefined)) knowledge.add(real);
    }
  }
  return { trees: trees.sort(), skillFolders: skillFolders.sort(), knowledge: [...knowledge].sort() };
}

/** `project_knowledge` of every module config in a tree (`<tree>/<module>/config.yaml`). */
async function knowledgeValues(tree: string): Promise<string[]> {
  const modules = await readdir(tree, { withFileTypes: true }).catch((): Dirent[] => []);
  const values: string[] = [];
  for (const module of modules) {
    if (!module.isDirectory()) continue;
    const text = await readFile(path.join(tree, module.name, "config.yaml"), "utf8").catch(() => undefined);
    if (text === undefined || text.length > 256 * 1024) continue;
    try {
      const parsed: unknown = parseYaml(text, { maxAliasCount: 50 });
      const value = parsed && typeof parsed === "object" ? (parsed as Record<string, unknown>)["project_knowledge"] : undefined;
      if (typeof value === "string") values.push(value.trim());
    } catch {
      // an unreadable config names no knowledge folder; the registry reports the file
    }
  }
  return values;
}

async function insideRealPath(projectRoot: string, candidate: string): Promise<string | undefined> {
  const real = await realpath(candidate).catch(() => undefined);
  return real !== undefined && relativeInside(projectRoot, real) !== undefined ? real : undefined;
}
