import type { Dirent } from "node:fs";
import { readdir, realpath } from "node:fs/promises";
import { join } from "node:path";
import { findToolSkills, isSkillHostName, skillsFolderName } from "@agent-orchestrator/shared/bmad";
import { isInside } from "@agent-orchestrator/shared/runtime";
import { type RegistryWarning } from "@agent-orchestrator/shared/wire";
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
  const hostOf = new Map(hosts.map((host) => [join(context.rootPath, host, skillsFolderName), host]));
  /** a skills folder relative to BMAD_ROOT, as warnings name it */
  const folderOf = (absolute: string) => `${hostOf.get(absolute) ?? ""}/${skillsFolderName}`;
  const found: string[] = [];
  const copies = await findToolSkills<SkillFolder>({
    skillsFolders: [...hostOf.keys()],
    async acceptSkillsFolder(absolute) {
      const folder = folderOf(absolute);
      const real = await realpath(absolute).catch(() => undefined);
      if (!real) return false;
      if (!isInside(rootReal, real)) {
        warnings.push({ code: "PATH_REJECTED", message: `${folder} leaves BMAD_ROOT; its skills are not read`, path: folder });
        return false;
      }
      found.push(hostOf.get(absolute) ?? "");
      return true;
    },
    isCandidateName: (name) => !name.startsWith("."),
    async accept({ name, folder: absolute, parent }) {
      const path = `${folderOf(parent)}/${name}`;
      const realPath = await realpath(absolute).catch(() => undefined);
      if (!realPath) return undefined;
      if (!isInside(rootReal, realPath)) {
        warnings.push({ code: "PATH_REJECTED", message: `${path} is a symbolic link that leaves BMAD_ROOT; it is not read`, path });
        return undefined;
      }
      return { name, path, absolute, realPath };
    },
    copies: "all",
    limit: {
      max: context.limits.maxSources,
      onReached(absolute, entries, remaining) {
        const folder = folderOf(absolute);
        warnings.push({ code: "LIMIT_REACHED", message: `${folder} has ${entries} skill folders; only ${remaining} more are read (REGISTRY_MAX_BUNDLES)`, path: folder });
      },
    },
  });
  const byNameMap = new Map<string, InstalledSkill>();
  for (const copy of copies) {
    const known = byNameMap.get(copy.name);
    if (known) known.others.push(copy);
    else byNameMap.set(copy.name, { name: copy.name, served: copy, others: [] });
  }
  return { skills: [...byNameMap.values()].sort((left, right) => byName(left.name, right.name)), hosts: found };
}
