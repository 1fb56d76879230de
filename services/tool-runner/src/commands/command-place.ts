import { workingTreeLayout, type PlaceLayout, type WorkingTreePlace } from "../os-sandbox/working-tree-layout.js";

/** Where the working tree is inside every command's sandbox: the command starts there. */
export const insideTree = "/project";

/** The host folders a command works in (os-sandbox/working-tree-layout.ts). */
export type CommandPlace = WorkingTreePlace;

/** The place as a command's sandbox binds it: the tree at /project, a checkout's `.git` at /git and its objects at /git-objects. */
export function placeLayout(place: CommandPlace): PlaceLayout {
  return workingTreeLayout(place, { tree: insideTree, git: "/git", objects: "/git-objects" });
}
