import { readFile } from "node:fs/promises";
import path from "node:path";
import { assertPathShape, findProtectedSegment, isServablePath, writeFileAtomically } from "../sandbox/index.js";
import { removeSessionFile } from "../sandbox/file-remover.js";
import { assertWritableTarget, prepareParentDirectories } from "../sandbox/write-path.js";
import type { WorkspaceReport } from "./workspace-channel.js";

/** What a run's report changed in the session folder, paths virtual. */
export interface WorkspaceCommit {
  written: Array<{ path: string; size: number; created: boolean }>;
  removed: string[];
  /** what the run left that the system cannot serve or must not take: never written to the session folder */
  refused: Array<{ path: string; reason: string }>;
}

const systemFileName = /^manifest\.json/i;

/**
 * Applies a finished run's report to the host's session folder, through the same steps as `save_output`:
 * each name checked by shape (no control or bidi characters, no `..`, no over-long names), never a protected
 * or system name, folders made one level at a time without following links, each file written whole by temp
 * file and rename, as a plain 0644 file whatever mode it had inside (no setuid, no device, no FIFO ever
 * reaches the host: the report carries regular files' bytes only).
 */
export async function commitWorkspace(sessionFolder: string, report: WorkspaceReport, existing: ReadonlySet<string>): Promise<WorkspaceCommit> {
  const commit: WorkspaceCommit = { written: [], removed: [], refused: [] };
  for (const skipped of report.skipped) commit.refused.push({ path: virtual(printable(skipped.relative)), reason: skipped.reason });
  for (const file of report.files) {
    const reason = refusal(file.relative);
    if (reason) {
      commit.refused.push({ path: virtual(printable(file.relative)), reason });
      continue;
    }
    const segments = file.relative.split("/");
    const name = segments.pop() ?? "";
    const detail = { reason: "script output", relative: file.relative };
    const parent = await prepareParentDirectories(sessionFolder, segments, detail);
    await assertWritableTarget(path.join(parent, name), sessionFolder, detail);
    await writeFileAtomically(parent, name, await readFile(file.staged));
    commit.written.push({ path: virtual(file.relative), size: file.size, created: !existing.has(file.relative) });
  }
  commit.written.sort((a, b) => a.path.localeCompare(b.path));
  commit.refused.sort((a, b) => a.path.localeCompare(b.path));
  for (const relative of report.deleted) {
    if (!existing.has(relative) || refusal(relative)) continue;
    await removeSessionFile(sessionFolder, virtual(relative));
    commit.removed.push(virtual(relative));
  }
  return commit;
}

function refusal(relative: string): string | undefined {
  try {
    assertPathShape(relative);
  } catch (error) {
    return error instanceof Error ? error.message : "invalid name";
  }
  const segments = relative.split("/");
  if (segments.some((segment) => segment === "" || segment === "." || segment === "..")) return "Invalid path: empty, . or .. segment";
  // a name the file tools could not open again (a `{…}` variable look-alike) is never written
  if (!isServablePath(virtual(relative))) return "a name the file tools cannot open";
  if (findProtectedSegment(relative) !== undefined || systemFileName.test(segments[0] ?? "")) return "a protected or system name";
  return undefined;
}

const virtual = (relative: string) => `{session-folder}/${relative}`;

// a refused name is shown, never as raw control or bidi characters (a terminal or page could be fooled by them)
function printable(name: string): string {
  return name.replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
