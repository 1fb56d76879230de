import { isInstallPlace } from "@agent-orchestrator/shared/bmad";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { type FileSpaceRef } from "@agent-orchestrator/shared/wire";
import { assertPathShape } from "../paths/path-shape.js";
import { findProtectedSegment } from "../paths/protected-names.js";
import { isServableName } from "../paths/servable-name.js";

/**
 * A path a client gave for a file of a space (`_bmad-output/planning-artifacts/prd.md`), checked as the
 * sandbox checks the model's: its shape (no control characters, no over-long names), relative, no `.` or `..`
 * segment, no protected name (`.env`, `.git`, keys), a name the tools can open. Returns it unchanged.
 */
export function checkedSpacePath(input: string): string {
  assertPathShape(input);
  const segments = input.split("/");
  if (input.startsWith("/") || segments.some((segment) => segment === "" || segment === "." || segment === "..")) {
    throw new AppError("INVALID_PATH", "Invalid path: give it relative to the project, without . or .. or empty names");
  }
  if (findProtectedSegment(input) !== undefined) throw new AppError("PROTECTED_PATH", "Access denied");
  // each name on its own: a space path has no leading root variable, so `{bundle-root}/x` is a name with braces
  if (!segments.every(isServableName)) throw new AppError("INVALID_PATH", "Invalid path: the name holds characters files may not have");
  return input;
}

/**
 * A path of a file a member writes into a space: as `checkedSpacePath`, and in a project never under BMAD's
 * install folder names at the top (`_bmad/`, `.bmad-core/`, `.claude/`): there `{project-root}` shows the
 * installed BMAD files, so a project file would be hidden from the tools, or shadow BMAD in a script's copy.
 */
export function checkedWritablePath(space: FileSpaceRef, input: string): string {
  const path = checkedSpacePath(input);
  if (space.kind === "project" && isInstallPlace(path)) {
    throw new AppError("PROTECTED_PATH", "BMAD's install folders are read-only; write elsewhere in the project");
  }
  return path;
}
