import type { Dirent } from "node:fs";
import { readdir, realpath } from "node:fs/promises";
import { join } from "node:path";
import { isSkillHostName, skillsFolderName, type RegistryWarning } from "@agent-orchestrator/shared";
import { isInside } from "./contained-path.js";
import { byName, type DiscoveryContext } from "./discovery-context.js";

/** One installed copy of a skill: `.<tool>/skills/<name>/`. */
export interface SkillFolder {
  name: string;
  /** relative to BMAD_ROOT */
  path: string;
  absolute: string;
  realPath: string;
}

/** A skill by name: the copy that is served, and the copies other tool folders hold. */
export interface InstalledSkill {
  name: string;
  served: SkillFolder;
  others: SkillFolder[];
}

/**
 * Lists the skills installed in the tool folders at BMAD_ROOT (`.claude/skills/`, `.agents/skills/`, …; any
 * top-level folder `isSkillHostName` accepts), grouped by skill name. The installer writes the same skill
 * into every tool folder it targets, so the copy in the first tool folder in byte order is the one served
 * (docs/bmad-releases.md). A skills folder or skill folder whose real path leaves BMAD_ROOT is refused; at
 * most `REGISTRY_MAX_BUNDLES` skill folders are read.
 */
export async function listInstalledSkills(context: DiscoveryContext, warnings: RegistryWarning[]): Promise<{ skills: InstalledSkill[]; hosts: string[] }> {
  const rootReal = await realpath(context.rootPath).catch(() => context.rootPath);
  const hosts = (await readdir(context.rootPath, { withFileTypes: true }).catch((): Dirent[] => []))
    .filter((entry) => isSkillHostName(entry.name) && (entry.isDirectory() || entry.isSymbolicLink()))
    .map((entry) => entry.name)
    .sort(byName);
  const byNameMap = new Map<string, InstalledSkill>();
  const found: string[] = [];
  let budget = context.limits.maxSources;
  for (const host of hosts) {
    const folder = `${host}/${skillsFolderName}`;
    const absolute = join(context.rootPath, folder);
    const real = await realpath(absolute).catch(() => undefined);
    if (!real) continue;
    if (!isInside(rootReal, real)) {
      warnings.push({ code: "PATH_REJECTED", message: `${folder} leaves BMAD_ROOT; its skills are not read`, path: folder });
      continue;
    }
    found.push(host);
    const entries = (await readdir(absolute, { withFileTypes: true }).catch((): Dirent[] => []))
      .filter((entry) => !entry.name.startsWith(".") && (entry.isDirectory() || entry.isSymbolicLink()))
      .sort((left, right) => byName(left.name, right.name));
    if (entries.length > budget) {
      warnings.push({ code: "LIMIT_REACHED", message: `${folder} has ${entries.length} skill folders; only ${budget} more are read (REGISTRY_MAX_BUNDLES)`, path: folder });
    }
    for (const entry of entries.slice(0, Math.max(0, budget))) {
      budget--;
      const path = `${folder}/${entry.name}`;
      const skillReal = await realpath(join(absolute, entry.name)).catch(() => undefined);
      if (!skillReal) continue;
      if (!isInside(rootReal, skillReal)) {
        warnings.push({ code: "PATH_REJECTED", message: `${path} is a symbolic link that leaves BMAD_ROOT; it is not read`, path });
        continue;
      }
      const copy: SkillFolder = { name: entry.name, path, absolute: join(absolute, entry.name), realPath: skillReal };
      const known = byNameMap.get(entry.name);
      if (known) known.others.push(copy);
      else byNameMap.set(entry.name, { name: entry.name, served: copy, others: [] });
    }
  }
  return { skills: [...byNameMap.values()].sort((left, right) => byName(left.name, right.name)), hosts: found };
}
