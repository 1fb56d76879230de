import { AppError } from "@agent-orchestrator/shared";
import { assertPathShape } from "../sandbox/path-shape.js";
import { findProtectedSegment } from "../sandbox/protected-names.js";
import { isServablePath } from "../sandbox/servable-name.js";

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
  if (!isServablePath(input)) throw new AppError("INVALID_PATH", "Invalid path: the name holds characters files may not have");
  return input;
}
