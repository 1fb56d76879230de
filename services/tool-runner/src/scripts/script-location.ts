import { lstat, realpath } from "node:fs/promises";
import { relativeInside } from "@agent-orchestrator/shared/runtime";
import { findProtectedSegment, resolveVirtualPath, type LexicalRoots } from "../sandbox/index.js";
import { rejected } from "./command-line.js";
import { hostToInside, type SandboxView } from "./sandbox-view.js";

const fullPathHint = "give its full path, e.g. {project-root}/_bmad/scripts/memlog.py or {project-root}/.claude/skills/<skill>/scripts/x.py";

/**
 * The inside path of the script to run, after checking where it really is: a regular `.py` file whose
 * realpath lies in a BMAD tree or a skill folder of the install (a file of the session or the project, which
 * a model or a script wrote, never runs; nor one a link in the install points to). The inside path is made
 * from the realpath, so python opens exactly the file checked; the trees are read-only for every session, so
 * it cannot be swapped.
 */
export async function locateScript(options: { view: SandboxView; roots: LexicalRoots; script: string }): Promise<string> {
  const { view, roots, script } = options;
  let hostPath: string;
  try {
    hostPath = resolveVirtualPath(script, roots);
  } catch (error) {
    throw rejected(`the script path is not valid (${error instanceof Error ? error.message : "invalid"})`);
  }
  const detail = { script, hostPath };
  if (relativeInside(view.sessionFolder, hostPath) !== undefined) throw rejected("scripts in the session folder do not run; only BMAD's own scripts do", detail);
  if (!inInstall(view, hostPath)) throw rejected(`the script is not in the BMAD install or a skill folder; ${fullPathHint}`, detail);
  const real = await realpath(hostPath).catch(() => undefined);
  if (real === undefined) throw rejected(`the script does not exist; ${fullPathHint}`, detail);
  if (!inInstall(view, real)) {
    throw rejected("the script links out of the BMAD install", { ...detail, real });
  }
  const relative = relativeInside(view.projectRoot, real) ?? "";
  // inside the sandbox a scratch place is a folder of the session: what is there was written by a script
  if (view.scratch.some((place) => relativeInside(place.relative, relative) !== undefined)) {
    throw rejected("scripts in the session folder do not run; only BMAD's own scripts do", { ...detail, real });
  }
  if (findProtectedSegment(relative) !== undefined) throw rejected("the script is in a protected folder", { ...detail, real });
  const stats = await lstat(real);
  if (!stats.isFile() || !real.endsWith(".py")) throw rejected("the script is not a regular .py file", { ...detail, real });
  const insidePath = hostToInside(view, real);
  if (insidePath === undefined) throw rejected("the script is not in the BMAD install", { ...detail, real });
  return insidePath;
}

function inInstall(view: SandboxView, hostPath: string): boolean {
  return view.readOnly.some((folder) => {
    const relative = relativeInside(folder.host, hostPath);
    return relative !== undefined && relative !== "";
  });
}
