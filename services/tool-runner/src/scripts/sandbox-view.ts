import { lstat } from "node:fs/promises";
import path from "node:path";
import { AppError, relativeInside } from "@agent-orchestrator/shared/runtime";
import { knownPathVariables, resolveVirtualPath, type LexicalRoots } from "../sandbox/index.js";
import type { ProjectLayout } from "../sandbox/project-layout.js";

/**
 * Where `{project-root}` appears inside the sandbox: the project's own files (read-write), with the BMAD trees
 * and skill folders bound read-only over them.
 */
export const insideProject = "/sandbox/project";
/** Where the chat's scratch space appears inside the sandbox (read-write); also the script's working folder. */
export const insideSession = "/sandbox/session";
/** The session sub-folder that takes BMAD's scratch places, e.g. `{session-folder}/.bmad-scratch/_bmad/render`. */
export const scratchFolderName = ".bmad-scratch";

/**
 * Folders inside a read-only BMAD tree that BMAD's own scripts write to: `render_skill.py` publishes rendered
 * skills under `_bmad/render/` (docs/bmad-releases.md). Each is replaced by a folder of the session.
 */
const scratchPlaces = ["_bmad/render"];

/** One scratch place: its project-relative name, and where it lives in the session folder. */
export interface ScratchPlace {
  /** e.g. `_bmad/render` */
  relative: string;
  /** session-relative, e.g. `.bmad-scratch/_bmad/render` */
  sessionRelative: string;
}

/** What one script run sees, as host paths, and how paths translate between the host, the sandbox and the model. */
export interface SandboxView {
  /** `{project-root}`: BMAD_ROOT's realpath, whose installed folders every project shows */
  projectRoot: string;
  /** `{session-folder}` as the sandbox module names it: a lexical path that never exists on disk */
  sessionFolder: string;
  /** the BMAD trees and skill folders (realpaths inside the project), each bound read-only at its inside path */
  readOnly: Array<{ host: string; inside: string }>;
  scratch: ScratchPlace[];
}

/** The view of one run: the install's trees and skill folders, and the scratch places inside them. */
export async function planSandboxView(options: { projectRoot: string; sessionFolder: string; layout: ProjectLayout }): Promise<SandboxView> {
  const { projectRoot, layout } = options;
  const readOnly = [...layout.trees, ...layout.skillFolders].flatMap((host) => {
    const relative = relativeInside(projectRoot, host);
    return relative === undefined || relative === "" ? [] : [{ host, inside: inside(insideProject, relative) }];
  });
  const scratch: ScratchPlace[] = [];
  for (const relative of scratchPlaces) {
    const host = path.join(projectRoot, relative);
    if (!readOnly.some((folder) => relativeInside(folder.host, host) !== undefined)) continue;
    const stats = await lstat(host).catch(() => undefined);
    if (stats?.isDirectory()) scratch.push({ relative, sessionRelative: path.posix.join(scratchFolderName, relative) });
  }
  return { projectRoot, sessionFolder: options.sessionFolder, readOnly, scratch };
}

/** The inside path of a host path under the project or the session folder; undefined elsewhere. */
export function hostToInside(view: SandboxView, hostPath: string): string | undefined {
  const inSession = relativeInside(view.sessionFolder, hostPath);
  if (inSession !== undefined) return inside(insideSession, inSession);
  const inProject = relativeInside(view.projectRoot, hostPath);
  return inProject === undefined ? undefined : inside(insideProject, inProject);
}

const leadingVariable = /^\{([^{}/]*)\}(?=\/|$)/;

/**
 * One argument as the script sees it. A word that starts with a path variable (`{session-folder}/run`), or an
 * option whose value does (`--out={session-folder}/x.html`), gets the inside path; any other word is passed as
 * it is. An unknown variable at such a place (`{doc_workspace}`, an unresolved `{skill-root}`) is refused: the
 * model must put in its value. A path that leaves the project and the session folder is refused.
 */
export function argumentInside(view: SandboxView, roots: LexicalRoots, word: string): string {
  if (leadingVariable.test(word)) return pathInside(view, roots, word);
  const equals = word.indexOf("=");
  if (equals > 0 && leadingVariable.test(word.slice(equals + 1))) {
    return `${word.slice(0, equals + 1)}${pathInside(view, roots, word.slice(equals + 1))}`;
  }
  return word;
}

function pathInside(view: SandboxView, roots: LexicalRoots, word: string): string {
  const name = leadingVariable.exec(word)?.[0] ?? "";
  if (!knownPathVariables.includes(name)) {
    throw new AppError(
      "UNRESOLVED_VARIABLE",
      `Unresolved variable ${name} in the command: replace it with its value (a path starts with {session-folder} or {project-root}; load_skill gives a skill's {skill-root})`,
    );
  }
  const hostPath = resolveVirtualPath(word, roots);
  const translated = hostToInside(view, hostPath);
  if (translated === undefined) {
    throw new AppError("PATH_OUTSIDE_ROOT", `Access denied: ${name} … leaves its folder`, { detail: { word, hostPath } });
  }
  return translated;
}

/**
 * The text a script printed, with every inside path named as the model names it: a scratch place as its
 * session folder (`{session-folder}/.bmad-scratch/_bmad/render/…`, readable with read_file), then
 * `{session-folder}` and `{project-root}`. The project's host path is rewritten too, in case a message of the
 * sandbox itself names one.
 */
export function virtualizeText(view: SandboxView, text: string): string {
  const replacements: Array<[string, string]> = [
    ...view.scratch.map((place): [string, string] => [inside(insideProject, place.relative), `{session-folder}/${place.sessionRelative}`]),
    [insideSession, "{session-folder}"],
    [insideProject, "{project-root}"],
    [view.projectRoot, "{project-root}"],
  ];
  // longest first, so a scratch place wins over the project that contains it
  replacements.sort((a, b) => b[0].length - a[0].length);
  let result = text;
  for (const [from, to] of replacements) result = result.replace(boundedPattern(from), to);
  return result;
}

function boundedPattern(prefix: string): RegExp {
  // a path ends where a path character does not follow: `/sandbox/session2` is not the session folder
  return new RegExp(`${prefix.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![A-Za-z0-9_.-])`, "g");
}

function inside(root: string, relative: string): string {
  return relative === "" ? root : path.posix.join(root, relative.split(path.sep).join("/"));
}
