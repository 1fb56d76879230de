import { isInstallPlace } from "@agent-orchestrator/shared/bmad";
import { type FileSpaceRef } from "@agent-orchestrator/shared/wire";
import { findProtectedSegment } from "../sandbox/index.js";
import type { FileStore } from "../store/file-store.js";
import { liveFiles } from "../store/space-index.js";
import type { WorkspaceInput } from "./workspace-channel.js";
import { channelPath, type SpaceKind } from "./workspace-places.js";

/** What a run starts with: the files handed to its sandbox, and the paths each space held. */
export interface WorkspaceInputs {
  inputs: WorkspaceInput[];
  /** the live paths of each space when the run began: a file written back that is not among them is new */
  existing: Record<SpaceKind, ReadonlySet<string>>;
}

/**
 * The project's own files and the chat's scratch files (or only the spaces of `kinds`: in a working tree, the project's
 * files are the tree's) as the store holds them now (their latest revisions),
 * each fetched by its sha256 only when it is sent. A protected name is never handed in, nor a project path in
 * BMAD's install places (the read-only trees are bound there), nor a path with an empty, `.` or `..` segment
 * (the store's writers refuse them; a place is never left through one).
 */
export async function workspaceInputs(files: FileStore, spaces: Record<SpaceKind, FileSpaceRef>, kinds: readonly SpaceKind[] = ["project", "session"]): Promise<WorkspaceInputs> {
  const indexes = await Promise.all(kinds.map(async (kind) => [kind, await files.index(spaces[kind])] as const));
  const inputs: WorkspaceInput[] = [];
  const existing = { project: new Set<string>(), session: new Set<string>() };
  for (const [kind, index] of indexes) {
    for (const file of liveFiles(index)) {
      existing[kind].add(file.path);
      if (!plainPath(file.path) || findProtectedSegment(file.path) !== undefined || (kind === "project" && isInstallPlace(file.path))) continue;
      inputs.push({ relative: channelPath({ kind, path: file.path }), size: file.size, content: () => files.content(file.sha256) });
    }
  }
  return { inputs, existing };
}

function plainPath(filePath: string): boolean {
  return filePath.split("/").every((segment) => segment !== "" && segment !== "." && segment !== "..");
}
