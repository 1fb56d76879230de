import { realpath } from "node:fs/promises";
import path from "node:path";
import {
  assertSkillName,
  listSkillFolder,
  readSkillMd,
  resolveSkillText,
  skillFileName,
  skillNotFound,
  withoutLateAnswers,
  type SkillTextScope,
} from "@agent-orchestrator/shared/bmad";
import { AppError, relativeInside } from "@agent-orchestrator/shared/runtime";
import { type LoadedSkill, type SettingsLayers } from "@agent-orchestrator/shared/wire";
import { isProtectedSegment, isServableName, type RootEntry, type Sandbox, type SandboxContext } from "../sandbox/index.js";
import type { LayoutRoot } from "../sandbox/project-layout.js";
import { OptionalFiles } from "./optional-file.js";
import { loadSkillCustomization } from "./skill-customization.js";
import { loadSkillFacts } from "./skill-facts.js";
import { SkillIndex, type SkillLocation } from "./skill-index.js";
import { loadSkillVariables } from "./skill-variables.js";

// one index per sandbox (per process), so every call shares the cached skill list
const indexes = new WeakMap<Sandbox, SkillIndex>();

/** The skill index of a sandbox, created on first use. */
export function skillIndexFor(sandbox: Sandbox): SkillIndex {
  let index = indexes.get(sandbox);
  if (!index) {
    index = new SkillIndex(sandbox);
    indexes.set(sandbox, index);
  }
  return index;
}

/**
 * Loads a skill for the model (docs/design.md "Activation by the system", docs/bmad-releases.md "Skills"): finds its folder by
 * name, reads SKILL.md, merges its customization layers, loads the config variables, resolves the
 * placeholders of the instructions, loads its persistent facts and lists its other files. The chat's settings, when
 * the call carries them, are merged over the install's (docs/settings.md). Every file is read
 * through the sandbox with the caller's context, so the skill is only what that caller may read, and every
 * path in the result is virtual. Unknown names are SKILL_NOT_FOUND with the closest names.
 */
export async function loadSkill(
  sandbox: Sandbox,
  context: SandboxContext,
  name: string,
  options: {
    today: Date;
    settings?: SettingsLayers | undefined;
    /** answers left as `{name}` in the instructions and facts (an agent's start: its prompt lists them at its end) */
    lateAnswers?: ReadonlySet<string> | undefined;
  },
): Promise<LoadedSkill> {
  assertSkillName(name);
  const roots = await sandbox.roots(context);
  const index = skillIndexFor(sandbox);
  const location = await index.find(name);
  if (!location) throw skillNotFound(name, await index.names());
  const skillRoot = location.virtualPath;
  let skillText: string;
  try {
    skillText = (await sandbox.read(context, `${skillRoot}/${skillFileName}`)).content;
  } catch (error) {
    if (AppError.is(error) && error.code === "FILE_NOT_FOUND") throw skillNotFound(name, await index.names());
    throw error;
  }
  const document = readSkillMd(skillText);
  const optional = new OptionalFiles(sandbox, context);
  const configTree = await configTreeOf(sandbox, location);
  const customization = await loadSkillCustomization(optional, { skillRoot, name, configTree: configTree?.virtualPath, settings: options.settings });
  const variables = await loadSkillVariables(optional, {
    name,
    configTree: configTree?.virtualPath,
    folderModule: location.tree ? location.tree.relative.split(path.sep)[0] : undefined,
    projectName: path.basename(sandbox.projectRoot),
    today: options.today,
    settings: options.settings,
  });
  const listing = await listSkillFiles(location.folder, roots.installed);
  const scope: SkillTextScope = {
    skillRoot,
    skillName: name,
    customization: customization.merged,
    variables: options.lateAnswers ? withoutLateAnswers(variables, options.lateAnswers) : variables,
    files: new Set(listing.files),
  };
  const { facts, notes: factNotes } = await loadSkillFacts(customization.table["persistent_facts"], {
    sandbox,
    context,
    roots,
    resolve: (text) => resolveSkillText(text, scope),
  });
  const notes = [
    ...(document.note ? [document.note] : []),
    ...optional.notes,
    ...factNotes,
    ...(listing.truncated ? [`Only the first ${listing.files.length} files of the skill are listed; use list_files for the rest`] : []),
    ...(listing.unservable > 0 ? [`${listing.unservable} name(s) in the skill's folder are not listed: the tools cannot open them`] : []),
  ];
  return {
    success: true,
    name: document.name || name,
    description: document.description,
    path: skillRoot,
    kind: customization.kind,
    instructions: resolveSkillText(document.body, scope),
    customization: customization.table,
    variables,
    facts,
    files: listing.files.map((file) => `${skillRoot}/${file}`),
    notes,
  };
}

/**
 * The BMAD tree whose config and `custom/` layers apply to a skill: the tree the skill is in, else the
 * newest-layout tree of the project (`_bmad/`, then `bmad/`); 4.x trees hold no skill config.
 */
async function configTreeOf(sandbox: Sandbox, location: SkillLocation): Promise<{ root: LayoutRoot; virtualPath: string } | undefined> {
  const trees = (await sandbox.layout()).roots.filter((root) => root.kind === "tree");
  const root = location.tree?.root ?? ["_bmad", "bmad"].map((name) => trees.find((tree) => path.basename(tree.lexical) === name)).find(Boolean);
  if (!root || path.basename(root.lexical).startsWith(".bmad-")) return undefined;
  return { root, virtualPath: `{project-root}/${path.relative(sandbox.projectRoot, root.lexical).split(path.sep).join("/")}` };
}

/**
 * The skill's files (shared `listSkillFolder`), listed only when the folder's real location lies in a readable
 * root. Names the tools could not open are left out and counted (docs/security.md case 142).
 */
async function listSkillFiles(folder: string, readable: readonly RootEntry[]): Promise<{ files: string[]; truncated: boolean; unservable: number }> {
  const real = await realpath(folder).catch(() => undefined);
  if (real === undefined || !readable.some((root) => relativeInside(root.real, real) !== undefined)) return { files: [], truncated: false, unservable: 0 };
  let unservable = 0;
  const skipped = (name: string) => {
    if (isProtectedSegment(name)) return true;
    if (isServableName(name)) return false;
    unservable++;
    return true;
  };
  return { ...(await listSkillFolder(real, skipped)), unservable };
}
