import { gitConfigEnvironment } from "../git/index.js";
import { monitorInside, monitorLayout, type TreeMonitor } from "../repository/monitor-hook.js";
import { workingTreeLayout, type PlaceLayout, type WorkingTreePlace } from "../os-sandbox/working-tree-layout.js";

/** Where the working tree is inside every command's sandbox: the command starts there. */
export const insideTree = monitorInside.tree;

/**
 * The host folders a command works in (os-sandbox/working-tree-layout.ts), and, for a checkout, its monitor: the
 * folder of the `core.fsmonitor` hook and its change log (read-only), and the one its cookies go to.
 */
export type CommandPlace = WorkingTreePlace & { monitor?: TreeMonitor | undefined };

/** How a command's sandbox holds its place, and the GIT_CONFIG_* variables that make its git ask the hook. */
export interface CommandLayout extends PlaceLayout {
  environment: Record<string, string>;
}

/**
 * The place as a command's sandbox binds it: the tree at /project, a checkout's `.git` at /git and its objects at
 * /git-objects, its monitor at /fsmonitor (read-only) and /fsmonitor-cookies (docs/repositories.md "git status in a
 * command"). Only the command's git is given the hook; the host's git never runs one.
 */
export function placeLayout(place: CommandPlace): CommandLayout {
  const layout = workingTreeLayout(place, { tree: insideTree, git: "/git", objects: "/git-objects" });
  if (place.monitor === undefined || place.gitDirectory === undefined) return { ...layout, environment: {} };
  const monitor = monitorLayout(place.monitor, insideTree);
  return { folders: [...layout.folders, ...monitor.folders], files: layout.files, environment: gitConfigEnvironment(monitor.settings) };
}
