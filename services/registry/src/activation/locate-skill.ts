import { realpath } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { findTreeSkills, skillNotFound } from "@agent-orchestrator/shared/bmad";
import { isInside } from "@agent-orchestrator/shared/runtime";
import type { DiscoveryContext } from "../discovery/discovery-context.js";
import { listInstalledSkills } from "../discovery/skill-folders.js";

/** Where a skill lives, and the `_bmad/` tree whose manifests and `custom/` layers apply to it. */
export interface SkillLocation {
  name: string;
  /** the folder relative to BMAD_ROOT (`.claude/skills/bmad-prd`, or 6.2's `_bmad/bmm/workflows/x/bmad-x`) */
  path: string;
  absolute: string;
  realPath: string;
  /** `_bmad/`, when the project has one */
  tree?: { folder: string; realPath: string } | undefined;
  /** for a skill kept in the tree: the module folder it is in (`bmm`) */
  folderModule?: string | undefined;
}

/** The skills-era tree (docs/bmad-releases.md): its config, manifests and `custom/` layers serve every skill. */
const treeFolder = "_bmad";

/**
 * Finds a skill by name the way the registry finds skill agents (docs/bmad-releases.md "Skills"): in the
 * tool folders first (`.<tool>/skills/<name>`, the copy in the first tool folder in byte order), then, for
 * 6.2, a folder of that name holding a SKILL.md under `_bmad/` (bounded search, hidden folders skipped).
 * A folder whose real path leaves BMAD_ROOT is never used. Unknown names are SKILL_NOT_FOUND with close names.
 */
export async function locateSkill(context: DiscoveryContext, name: string): Promise<SkillLocation> {
  const rootReal = await realpath(context.rootPath).catch(() => context.rootPath);
  const treeReal = await realpath(join(context.rootPath, treeFolder)).catch(() => undefined);
  const tree = treeReal && isInside(rootReal, treeReal) ? { folder: treeFolder, realPath: treeReal } : undefined;
  const { skills } = await listInstalledSkills(context, []);
  const installed = skills.find((skill) => skill.name === name);
  if (installed) return { ...installed.served, tree };

  const treeSkills = tree ? await findTreeSkills([join(context.rootPath, treeFolder)], (folder) => folder.startsWith(".")) : [];
  for (const { folder: absolute } of treeSkills.filter((candidate) => candidate.name === name)) {
    const real = await realpath(absolute).catch(() => undefined);
    if (!real || !tree || !isInside(tree.realPath, real)) continue;
    const path = relative(context.rootPath, absolute).split(sep).join("/");
    return { name, path, absolute, realPath: real, tree, folderModule: path.split("/")[1] };
  }
  throw skillNotFound(name, [...new Set([...skills.map((skill) => skill.name), ...treeSkills.map((candidate) => candidate.name)])]);
}
