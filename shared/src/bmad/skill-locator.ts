import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { skillFoldersUnder } from "./skill-tree-search.js";

/** A folder the locator found that may be a skill: its name, its path as listed (links not resolved), and where it was listed. */
export interface SkillCandidate {
  name: string;
  /** absolute, lexical */
  folder: string;
  /** the skills folder (`.claude/skills`) or BMAD tree (`_bmad`) it was found in */
  parent: string;
}

/**
 * How one caller reads the tool folders. The registry and the tool-runner find skills in the same order, but
 * check them differently on purpose: the registry resolves every folder and reports what it refuses, the
 * tool-runner offers only names `load_skill` could load and leaves link checks to its sandbox, which reads
 * every file of a skill.
 */
interface ToolSkillSearch<T> {
  /**
   * the tool folders' skills folders (`.<tool>/skills`), absolute, in serving order: the registry orders them by
   * tool folder name, the tool-runner by path, which differ only when one tool folder's name starts another's
   */
  skillsFolders: readonly string[];
  /** may a skills folder be read at all (the registry refuses one whose real path leaves BMAD_ROOT, with a warning) */
  acceptSkillsFolder?: (skillsFolder: string) => Promise<boolean>;
  /** entry names that can never be a skill (hidden names; for the tool-runner also names no skill could have and its protected names) */
  isCandidateName: (name: string) => boolean;
  /** the candidate as the caller keeps it, or undefined to pass it over (the registry: its real path leaves BMAD_ROOT; the tool-runner: it holds no SKILL.md) */
  accept: (candidate: SkillCandidate) => Promise<T | undefined>;
  /**
   * "first": a name is accepted once and its later copies are not looked at (the tool-runner serves one copy);
   * "all": every copy is returned in serving order (the registry serves the first and reports the others)
   */
  copies: "first" | "all";
  /** the most folders read over all skills folders, and who hears of a skills folder that has more (the registry's `REGISTRY_MAX_BUNDLES`); no limit when absent */
  limit?: { max: number; onReached: (skillsFolder: string, entries: number, remaining: number) => void };
}

/**
 * The skills of the tool folders (`.claude/skills/<name>`, `.agents/skills/<name>`; docs/bmad-releases.md, 6.2
 * onwards) in serving order: skills folders in the order given, the folders in each in byte order, so the copy
 * in the first tool folder is the one served. Only folders and links to them are candidates.
 */
export async function findToolSkills<T>(search: ToolSkillSearch<T>): Promise<T[]> {
  const found: T[] = [];
  const accepted = new Set<string>();
  let budget = search.limit?.max ?? Number.POSITIVE_INFINITY;
  for (const skillsFolder of search.skillsFolders) {
    if (search.acceptSkillsFolder && !(await search.acceptSkillsFolder(skillsFolder))) continue;
    const entries = (await readdir(skillsFolder, { withFileTypes: true }).catch((): Dirent[] => []))
      .filter((entry) => search.isCandidateName(entry.name) && (entry.isDirectory() || entry.isSymbolicLink()))
      .sort((left, right) => byteOrder(left.name, right.name));
    if (search.limit && entries.length > budget) search.limit.onReached(skillsFolder, entries.length, budget);
    for (const entry of entries.slice(0, Math.max(0, budget))) {
      budget--;
      if (search.copies === "first" && accepted.has(entry.name)) continue;
      const value = await search.accept({ name: entry.name, folder: path.join(skillsFolder, entry.name), parent: skillsFolder });
      if (value === undefined) continue;
      accepted.add(entry.name);
      found.push(value);
    }
  }
  return found;
}

/**
 * The skill folders kept inside BMAD trees (6.2 keeps skills in `_bmad/**`, docs/bmad-releases.md), trees in
 * byte order, each searched as `skillFoldersUnder` does; `isSkipped` names folders never entered (hidden ones
 * for the registry, the sandbox's protected names for the tool-runner). Callers look here after the tool
 * folders, which win.
 */
export async function findTreeSkills(trees: readonly string[], isSkipped: (name: string) => boolean): Promise<SkillCandidate[]> {
  const found: SkillCandidate[] = [];
  for (const tree of [...trees].sort(byteOrder)) {
    for (const folder of await skillFoldersUnder(tree, isSkipped)) found.push({ name: path.basename(folder), folder, parent: tree });
  }
  return found;
}

function byteOrder(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
