import path from "node:path";
import type { FileSpaceRef } from "@agent-orchestrator/shared/wire";
import type { LauncherPlace } from "./sandbox-launcher.js";
import { insideProject, insideSession, type SandboxView } from "./sandbox-view.js";

/** The store space a file of a run belongs to. */
export type SpaceKind = FileSpaceRef["kind"];

/** A file of a run as the store names it: its space, and its path there (relative, POSIX). */
export interface SpacePath {
  kind: SpaceKind;
  path: string;
}

/**
 * How a file is named on the launcher's channel: its space, then its path in it (`project/docs/prd.md`,
 * `session/prd-run/.memlog.md`), so one namespace carries both spaces and each place is a prefix of it.
 */
export function channelPath(file: SpacePath): string {
  return `${file.kind}/${file.path}`;
}

/** The space and path a channel name stands for; undefined for a name of neither space (the launcher is not trusted). */
export function spacePathOf(relative: string): SpacePath | undefined {
  const slash = relative.indexOf("/");
  const kind = relative.slice(0, slash);
  if (slash < 0 || (kind !== "project" && kind !== "session")) return undefined;
  return { kind, path: relative.slice(slash + 1) };
}

/** The path the model names a file of a run by: `{project-root}/…` or `{session-folder}/…`. */
export function virtualPathOf(file: SpacePath): string {
  return `${file.kind === "project" ? "{project-root}" : "{session-folder}"}/${file.path}`;
}

/** The writable places of one run, in the order bwrap mounts them around the read-only trees. */
export interface WorkspacePlaces {
  /** `{project-root}`: the project's own files; mounted first, so the read-only trees are bound into it */
  project: LauncherPlace;
  /** the scratch places (inside the trees) and `{session-folder}`: mounted after the trees */
  overTrees: LauncherPlace[];
}

/** The places of a run: the project, the chat's scratch space, and BMAD's scratch places as folders of that space. */
export function workspacePlaces(view: SandboxView): WorkspacePlaces {
  return {
    project: { inside: insideProject, prefix: "project" },
    overTrees: [
      ...view.scratch.map((place) => ({ inside: path.posix.join(insideProject, place.relative), prefix: channelPath({ kind: "session", path: place.sessionRelative }) })),
      { inside: insideSession, prefix: "session" },
    ],
  };
}

/** The place a channel name lands in: the one with the longest prefix that contains it. */
export function placeOf(places: readonly LauncherPlace[], relative: string): LauncherPlace | undefined {
  const matching = places.filter((place) => relative.startsWith(`${place.prefix}/`));
  return matching.reduce<LauncherPlace | undefined>((longest, place) => (longest && longest.prefix.length >= place.prefix.length ? longest : place), undefined);
}
