import { readFile } from "node:fs/promises";
import { isInstallPlace } from "@agent-orchestrator/shared/bmad";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { type ErrorCode, type FileAuthor, type FileSpaceRef } from "@agent-orchestrator/shared/wire";
import { assertPathShape, findProtectedSegment, isServablePath } from "../sandbox/index.js";
import type { FileChange } from "../store/file-change.js";
import type { FileStore } from "../store/file-store.js";
import type { WorkspaceReport } from "./workspace-channel.js";
import { spacePathOf, virtualPathOf, type SpaceKind, type SpacePath } from "./workspace-places.js";

/** What a run's report changed in the store, paths virtual. */
export interface WorkspaceCommit {
  written: Array<{ path: string; size: number; created: boolean }>;
  removed: string[];
  /** what the run left that the system cannot serve or must not take, or that its space refused: never stored */
  refused: Array<{ path: string; reason: string }>;
  /** the spaces that refused the run's changes as a whole (their quota, or a name another chat made a file meanwhile) */
  spacesRefused: SpaceRefusal[];
}

/** Why a space kept none of a run's changes: the store's error. */
export interface SpaceRefusal {
  kind: SpaceKind;
  code: ErrorCode;
  message: string;
}

// what the store answers for a batch it refuses as a whole; anything else is a failure of the call
const batchRefusals: ReadonlySet<ErrorCode> = new Set(["QUOTA_EXCEEDED", "INVALID_PATH", "NOT_A_FILE"]);

/** Where a run's changes go, and who made them. */
export interface WorkspaceTarget {
  files: FileStore;
  spaces: Record<SpaceKind, FileSpaceRef>;
  /** the live paths of each space when the run began (workspace-inputs.ts) */
  existing: Record<SpaceKind, ReadonlySet<string>>;
  author: FileAuthor;
}

const spaceNames: Record<SpaceKind, string> = { project: "project", session: "chat's scratch space" };

/**
 * Stores a finished run's report: the new and changed regular files and the deletions of each space, checked
 * as `save_output` checks a path (its shape, no `.`/`..`, a name the tools can open, no protected name, never
 * into BMAD's install places), then applied to each space as one batch with that space's quota checked on the
 * whole. A space that refuses the batch (over its quota, or a name that another chat made a file of meanwhile)
 * keeps none of the run's changes; the other space keeps its own. The bytes come
 * from the staged report: whatever mode a file had inside (setuid, a device), only its content is stored.
 */
export async function commitWorkspace(report: WorkspaceReport, target: WorkspaceTarget): Promise<WorkspaceCommit> {
  const commit: WorkspaceCommit = { written: [], removed: [], refused: [], spacesRefused: [] };
  for (const skipped of report.skipped) commit.refused.push({ path: shown(skipped.relative), reason: skipped.reason });
  const changes: Record<SpaceKind, FileChange[]> = { project: [], session: [] };
  for (const file of report.files) {
    const named = spacePathOf(file.relative);
    if (named === undefined) {
      commit.refused.push({ path: shown(file.relative), reason: "not in the project or the session folder" });
      continue;
    }
    const reason = refusal(named);
    if (reason !== undefined) {
      commit.refused.push({ path: shown(file.relative), reason });
      continue;
    }
    changes[named.kind].push({ path: named.path, content: await readFile(file.staged) });
  }
  for (const relative of report.deleted) {
    const named = spacePathOf(relative);
    if (named === undefined || !target.existing[named.kind].has(named.path) || refusal(named) !== undefined) continue;
    changes[named.kind].push({ path: named.path, content: null });
  }
  for (const kind of ["project", "session"] as const) {
    if (changes[kind].length === 0) continue;
    try {
      const revisions = await target.files.apply(target.spaces[kind], changes[kind], target.author);
      for (const revision of revisions) {
        const path = virtualPathOf({ kind, path: revision.path });
        if (revision.deleted === true) commit.removed.push(path);
        else commit.written.push({ path, size: revision.size, created: !target.existing[kind].has(revision.path) });
      }
    } catch (error) {
      if (!AppError.is(error) || !batchRefusals.has(error.code)) throw error;
      commit.spacesRefused.push({ kind, code: error.code, message: error.message });
      const why = error.code === "QUOTA_EXCEEDED" ? `over the ${spaceNames[kind]}'s quota` : `refused by the ${spaceNames[kind]}`;
      const reason = `${why}: none of the run's changes there were kept`;
      for (const change of changes[kind]) commit.refused.push({ path: virtualPathOf({ kind, path: change.path }), reason });
    }
  }
  commit.written.sort((a, b) => a.path.localeCompare(b.path));
  commit.removed.sort((a, b) => a.localeCompare(b));
  commit.refused.sort((a, b) => a.path.localeCompare(b.path));
  return commit;
}

function refusal(file: SpacePath): string | undefined {
  try {
    assertPathShape(file.path);
  } catch (error) {
    return error instanceof Error ? error.message : "invalid name";
  }
  if (file.path.split("/").some((segment) => segment === "" || segment === "." || segment === "..")) return "Invalid path: empty, . or .. segment";
  // a name the file tools could not open again (a `{…}` variable look-alike) is never stored
  if (!isServablePath(virtualPathOf(file))) return "a name the file tools cannot open";
  if (findProtectedSegment(file.path) !== undefined) return "a protected name";
  if (file.kind === "project" && isInstallPlace(file.path)) return "BMAD's install folders are read-only";
  return undefined;
}

/** A channel name as the model would name it, never with raw control or bidi characters (a page could be fooled by them). */
function shown(relative: string): string {
  const named = spacePathOf(relative);
  return (named === undefined ? relative : virtualPathOf(named)).replace(
    /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
