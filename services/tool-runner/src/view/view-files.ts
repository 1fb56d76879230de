import path from "node:path";
import { relativeInside } from "@agent-orchestrator/shared/runtime";
import type { FileRevision, FileSpaceRef } from "@agent-orchestrator/shared/wire";
import type { TreeView } from "../repository/index.js";
import type { Location, Sandbox } from "../sandbox/sandbox.js";
import { catalogueOf } from "./file-catalogue.js";
import type { ContextRoots, SandboxContext } from "../sandbox/sandbox-roots.js";
import { maxPathLength } from "../paths/path-shape.js";
import { sandboxError } from "../paths/sandbox-error.js";
import { readableInstalledFiles } from "./readable-installed-files.js";

/** Where a file of the view gets its content from. */
export type ViewSource =
  | { kind: "stored"; space: FileSpaceRef; file: FileRevision }
  /** an installed file, read through the sandbox by its virtual path */
  | { kind: "installed" }
  /** a file of the chat's working tree, a blob of the repository (docs/repositories.md) */
  | { kind: "tree"; view: TreeView; id: string };

/** One file of the project view as one call sees it. */
export interface ViewFile {
  /** `{project-root}/…` for the project's and the installed files, `{session-folder}/…` for the chat's scratch files */
  path: string;
  /** the path below the base the call named (`/`-separated; a base that is this file: its name), which globs match */
  relative: string;
  size: number;
  mtimeMs: number;
  source: ViewSource;
}

/** The files under a base. */
export interface ViewListing {
  /** the base as a virtual path, when the call named one */
  base?: string;
  files: ViewFile[];
  /** the index of installed files is incomplete (an install past its entry bound) */
  partial: boolean;
}

/** What a base covers in each place: a path prefix of each space, and a host folder of the installed files. */
interface Scope {
  project?: string;
  session?: string;
  installed?: string;
}

/**
 * The files of the project view under `base` for one call: the project's own live files (from the store's
 * index, stored-files.ts), the installed BMAD files this context may read (from the in-memory index, with the
 * checks a read makes, readable-installed-files.ts) and the chat's scratch files, never by walking a disk.
 * `base` is checked by the sandbox as list_files checks a folder, so every path rule holds; it may name one
 * file. Without a base the view is `{project-root}` and `{session-folder}`, and each file's `relative` starts
 * at its own root. A base with no file is FILE_NOT_FOUND, unless it is a root, or an installed folder that
 * exists and is empty.
 */
export async function viewFiles(sandbox: Sandbox, context: SandboxContext, base?: string): Promise<ViewListing> {
  const located = base === undefined ? undefined : await sandbox.locate(context, base, "list");
  const roots = located?.roots ?? (await sandbox.roots(context));
  const project: FileSpaceRef = { kind: "project", id: context.project_id };
  const session: FileSpaceRef = { kind: "session", id: context.session_id };
  const scope: Scope =
    located === undefined
      ? { project: "", session: "", installed: roots.lexical.project }
      : located.kind === "tree"
        ? { project: located.path, installed: path.join(roots.lexical.project, ...located.path.split("/")) }
        : located.kind !== "stored"
          ? { installed: located.hostPath }
          : located.space.kind === "session"
            ? { session: located.path }
            : { project: located.path, installed: path.join(roots.lexical.project, ...located.path.split("/")) };
  const catalogue = catalogueOf(sandbox);
  // a project with a repository shows its working tree, not its stored files (docs/repositories.md)
  const tree = located === undefined ? await sandbox.workingTree(context) : located.kind === "tree" ? located.view : undefined;
  const [projectFiles, sessionFiles, installed] = await Promise.all([
    scope.project === undefined || tree !== undefined ? [] : catalogue.stored.list(sandbox.files, project),
    scope.session === undefined ? [] : catalogue.stored.list(sandbox.files, session),
    scope.installed === undefined ? undefined : catalogue.installed.list(),
  ]);

  const files: ViewFile[] = [];
  for (const [space, prefix, stored, root] of [
    [project, scope.project, projectFiles, "{project-root}"],
    [session, scope.session, sessionFiles, "{session-folder}"],
  ] as const) {
    if (prefix === undefined) continue;
    for (const { file, mtimeMs } of stored) {
      const relative = below(prefix, file.path, "/");
      if (relative === undefined) continue;
      files.push({ path: `${root}/${file.path}`, relative, size: file.size, mtimeMs, source: { kind: "stored", space, file } });
    }
  }
  if (tree && scope.project !== undefined) {
    const mtimeMs = Date.parse(tree.state.updated_at) || 0;
    for (const file of await catalogue.trees.list(tree)) {
      const relative = below(scope.project, file.path, "/");
      if (relative === undefined) continue;
      files.push({ path: `{project-root}/${file.path}`, relative, size: file.size, mtimeMs, source: { kind: "tree", view: tree, id: file.id } });
    }
  }
  if (installed && scope.installed !== undefined) {
    const projectPrefix = `${roots.lexical.project}${path.sep}`;
    for (const file of readableInstalledFiles(installed, roots)) {
      const relative = below(scope.installed, file.lexical, path.sep);
      if (relative === undefined || !file.lexical.startsWith(projectPrefix)) continue;
      const shown = `{project-root}/${posix(file.lexical.slice(projectPrefix.length))}`;
      if (shown.length > maxPathLength) continue;
      files.push({ path: shown, relative: posix(relative), size: file.size, mtimeMs: file.mtimeMs, source: { kind: "installed" } });
    }
  }

  if (located !== undefined && files.length === 0) {
    // the sandbox's own verdict on an installed folder with nothing readable in it (missing, a link leading out, empty)
    if (located.kind === "installed") await sandbox.list(context, base ?? "");
    else if ((located.kind === "stored" || located.kind === "tree") && located.path !== "") throw sandboxError("FILE_NOT_FOUND", `Folder not found: ${shownPath(roots, located)}`);
  }
  return { ...(located === undefined ? {} : { base: shownPath(roots, located) }), files, partial: installed?.truncated === true };
}

/**
 * `candidate` below the folder `prefix` (the folder itself: its name), or undefined. By string prefix on paths
 * that are normalised on both sides (store paths, and host paths from path.join and realpath).
 */
function below(prefix: string, candidate: string, separator: string): string | undefined {
  if (prefix === "") return candidate;
  if (candidate === prefix) return candidate.slice(candidate.lastIndexOf(separator) + 1);
  const folder = prefix.endsWith(separator) ? prefix : `${prefix}${separator}`;
  return candidate.startsWith(folder) ? candidate.slice(folder.length) : undefined;
}

function posix(relative: string): string {
  return path.sep === "/" ? relative : relative.split(path.sep).join("/");
}

/** A base as the tools show it: `{session-folder}/…` or `{project-root}/…`. */
function shownPath(roots: ContextRoots, located: Location): string {
  if (located.kind === "tree") return located.path === "" ? "{project-root}" : `{project-root}/${located.path}`;
  if (located.kind === "stored") {
    const root = located.space.kind === "session" ? "{session-folder}" : "{project-root}";
    return located.path === "" ? root : `${root}/${located.path}`;
  }
  const relative = relativeInside(roots.lexical.project, located.hostPath) ?? "";
  return relative === "" ? "{project-root}" : `{project-root}/${posix(relative)}`;
}
