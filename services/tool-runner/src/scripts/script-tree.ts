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
