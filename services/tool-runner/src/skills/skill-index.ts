import path from "node:path";
import { findToolSkills, findTreeSkills, hasSkillFile } from "@agent-orchestrator/shared/bmad";
import { skillNamePattern } from "@agent-orchestrator/shared/wire";
import { isProtectedSegment, type Sandbox } from "../sandbox/index.js";
import type { LayoutRoot, ProjectLayout } from "../sandbox/project-layout.js";

/** Where a skill lives. */
export interface SkillLocation {
  name: string;
  /** the folder's lexical host path, for the log only */
  folder: string;
  /** the folder as the model sees it, e.g. `{project-root}/.claude/skills/bmad-prd` */
  virtualPath: string;
  /** the BMAD tree holding the skill (6.2 keeps skills in `_bmad/**`), with the skill's path inside it */
  tree?: { root: LayoutRoot; relative: string };
}

const indexMaxAgeMs = 5000;
const indexMinRefreshMs = 1000;

/**
 * The project's skills by name, found the way the installer lays them out (docs/bmad-releases.md): first the
 * skill folders of every tool folder (`.claude/skills/<name>`, `.agents/skills/<name>`; a name seen in an
 * earlier folder in byte order wins), then folders holding a `SKILL.md` under the BMAD trees, at most
 * shared `treeSearchDepth` deep. Built from the sandbox's cached layout and kept like it: rebuilt when older than a
 * few seconds, or when a name is missing (at most once a second). Finding a skill gives a path only; its
 * files are read through the sandbox.
 */
export class SkillIndex {
  private index: Promise<Map<string, SkillLocation>> | undefined;
  private builtAt = 0;

  constructor(
    private readonly sandbox: Sandbox,
    private readonly now: () => number = Date.now,
  ) {}

  /** The skill called `name`, or undefined; a miss rebuilds the index once (a skill installed since). */
  async find(name: string): Promise<SkillLocation | undefined> {
    const known = (await this.current()).get(name);
    if (known || this.now() - this.builtAt < indexMinRefreshMs) return known;
    return (await this.build(true)).get(name);
  }

  /** Every known skill name, in byte order. */
  async names(): Promise<string[]> {
    return [...(await this.current()).keys()].sort();
  }

  private current(): Promise<Map<string, SkillLocation>> {
    if (this.index && this.now() - this.builtAt < indexMaxAgeMs) return this.index;
    return this.build(false);
  }

  private build(refreshLayout: boolean): Promise<Map<string, SkillLocation>> {
    this.builtAt = this.now();
    this.index = this.sandbox.layout({ refresh: refreshLayout }).then((layout) => indexSkills(this.sandbox.projectRoot, layout));
    return this.index;
  }
}

async function indexSkills(projectRoot: string, layout: ProjectLayout): Promise<Map<string, SkillLocation>> {
  const virtualOf = (folder: string) => `{project-root}/${path.relative(projectRoot, folder).split(path.sep).join("/")}`;
  const byLexical = (a: LayoutRoot, b: LayoutRoot) => (a.lexical < b.lexical ? -1 : a.lexical > b.lexical ? 1 : 0);
  const toolSkills = await findToolSkills<SkillLocation>({
    skillsFolders: layout.roots.filter((candidate) => candidate.kind === "skills").sort(byLexical).map((root) => root.lexical),
    // a folder whose name is no skill name could never be loaded (assertSkillName): it is not offered as a close name either
    isCandidateName: (name) => skillNamePattern.test(name) && !isProtectedSegment(name),
    // a linked skill folder is indexed as it is; reading it goes through the sandbox, which refuses an escape
    accept: async ({ name, folder }) => ((await hasSkillFile(folder)) ? { name, folder, virtualPath: virtualOf(folder) } : undefined),
    copies: "first",
  });
  const found = new Map(toolSkills.map((skill) => [skill.name, skill]));
  const trees = new Map(layout.roots.filter((candidate) => candidate.kind === "tree").map((root) => [root.lexical, root]));
  for (const { name, folder, parent } of await findTreeSkills([...trees.keys()], isProtectedSegment)) {
    const root = trees.get(parent);
    if (!root || found.has(name) || !skillNamePattern.test(name)) continue;
    found.set(name, { name, folder, virtualPath: virtualOf(folder), tree: { root, relative: path.relative(root.lexical, folder) } });
  }
  return found;
}
