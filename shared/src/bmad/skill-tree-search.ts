import { lstat, opendir, stat } from "node:fs/promises";
import path from "node:path";
import { skillFileName } from "./install-layout.js";

/** How deep below a BMAD tree a skill folder may be (`_bmad/bmm/workflows/1-analysis/research/<skill>`). */
const treeSearchDepth = 5;
/** Folders a tree search opens at most, so a huge tree costs a bounded time. */
const treeSearchMaxFolders = 5000;
const skippedFolders = new Set(["node_modules", ".git"]);

/**
 * Folders holding a SKILL.md under the BMAD tree `tree` (6.2 keeps skills in `_bmad/**`, docs/bmad-releases.md),
 * breadth first, not following links, at most `treeSearchDepth` deep and `treeSearchMaxFolders` opened, in byte
 * order; folders `isSkipped` refuses (the tool-runner's protected names) are not entered.
 */
export async function skillFoldersUnder(tree: string, isSkipped: (name: string) => boolean): Promise<string[]> {
  const skills: string[] = [];
  let level = [tree];
  let opened = 0;
  for (let depth = 1; depth <= treeSearchDepth && level.length > 0; depth++) {
    const next: string[] = [];
    for (const folder of level) {
      if (opened++ >= treeSearchMaxFolders) return skills.sort();
      const directory = await opendir(folder).catch(() => undefined);
      if (!directory) continue;
      for await (const entry of directory) {
        if (!entry.isDirectory() || skippedFolders.has(entry.name) || isSkipped(entry.name)) continue;
        const child = path.join(folder, entry.name);
        if (await hasSkillFile(child)) skills.push(child);
        else next.push(child);
      }
    }
    level = next.sort();
  }
  return skills.sort();
}

/** True when `folder` holds a SKILL.md that is a file (or a link to one). */
export async function hasSkillFile(folder: string): Promise<boolean> {
  const file = path.join(folder, skillFileName);
  const stats = await lstat(file).catch(() => undefined);
  if (stats?.isSymbolicLink()) return (await stat(file).catch(() => undefined))?.isFile() ?? false;
  return stats?.isFile() ?? false;
}
