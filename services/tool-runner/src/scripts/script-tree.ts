import { lstat } from "node:fs/promises";
import path from "node:path";
import { AppError, relativeInside } from "@agent-orchestrator/shared/runtime";
import type { WorkingTreeInside, WorkingTreePlace } from "../os-sandbox/working-tree-layout.js";
import type { TreeMonitor } from "../repository/monitor-hook.js";
import { insideProject } from "./sandbox-view.js";
import type { WorkspaceReport } from "./workspace-channel.js";

/**
 * A git working tree a script runs in, as `{project-root}` (docs/repositories.md "Scripts in the working tree"): the
 * chat's checkout bound read-write from the host (withWorkingTree keeps what the script changed), its `.git` and the
 * repository's objects beside it, so `git` works there, asking the checkout's monitor as a command's git does; the
 * GIT_* variables its commits are made with.
 */
export interface ScriptTree {
  place: WorkingTreePlace & { monitor?: TreeMonitor | undefined };
  gitEnvironment: Readonly<Record<string, string>>;
}

/** Where a script's sandbox shows a working tree, its `.git` and the repository's objects. */
export const scriptTreeInside: WorkingTreeInside = { tree: insideProject, git: "/sandbox/git", objects: "/sandbox/git-objects" };

/** Where a script's git reads the exclude file that names the install's folders bound into its tree (core.excludesFile). */
const installExcludesInside = "/sandbox/git-excludes";

/**
 * The exclude file of a script's git, bound read-only, and the setting naming it: BMAD's read-only trees bound into
 * the working tree (`_bmad`, `.claude/skills`) are not the repository's, so `git status` does not list them as
 * untracked and `git add -A` does not commit them. Each is anchored at the tree's root (`/_bmad/`), so a folder of
 * that name deeper in the repository is still seen; exclude rules never hide a tracked file.
 */
export function installExcludes(readOnly: ReadonlyArray<{ inside: string }>): { file: { inside: string; content: string }; setting: readonly [string, string] } {
  const lines = readOnly.flatMap((folder) => {
    const relative = relativeInside(insideProject, folder.inside);
    // a backslash makes git take each special character of a name as itself
    return relative === undefined || relative === "" ? [] : [`/${relative.replace(/[\\*?[\]!# ]/g, "\\$&")}/\n`];
  });
  return { file: { inside: installExcludesInside, content: lines.join("") }, setting: ["core.excludesFile", installExcludesInside] };
}

/**
 * Refuses a run whose working tree holds a link (or a file) where BMAD's read-only trees are bound into it (`_bmad`,
 * `.claude/skills/…`), on the way or at the end: the bind would land where the link points.
 */
export async function checkBindPoints(tree: WorkingTreePlace, readOnly: ReadonlyArray<{ inside: string }>): Promise<void> {
  for (const folder of readOnly) {
    const relative = relativeInside(insideProject, folder.inside);
    if (relative === undefined || relative === "") continue;
    let at = tree.directory;
    for (const segment of relative.split("/")) {
      at = path.join(at, segment);
      const seen = await lstat(at).catch(() => undefined);
      if (seen === undefined) break;
      if (!seen.isDirectory()) {
        throw new AppError("SCRIPT_REJECTED", `The repository has a link or a file at {project-root}/${path.relative(tree.directory, at)}, where BMAD's installed files are shown; scripts do not run until it is a folder or gone`);
      }
    }
  }
}

/**
 * The launcher's report with only the chat's scratch files: in a working tree, the project's files are the tree's,
 * kept by withWorkingTree; a project file the launcher names anyway (it is not trusted) is refused.
 */
export function sessionOnly(report: WorkspaceReport): WorkspaceReport {
  const inSession = (relative: string) => relative.startsWith("session/");
  return {
    ...report,
    files: report.files.filter((file) => inSession(file.relative)),
    deleted: report.deleted.filter(inSession),
    skipped: [...report.skipped, ...report.files.filter((file) => !inSession(file.relative)).map((file) => ({ relative: file.relative, reason: "the project's files are the working tree's" }))],
  };
}
