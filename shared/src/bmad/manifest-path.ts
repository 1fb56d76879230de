import { posix } from "node:path";

/** Longest path a manifest may write; real ones are a few dozen characters. */
const maxManifestPathLength = 1024;

/** A manifest path checked by shape: the normalised path, or why it was refused. */
type ManifestPathCheck = { ok: true; path: string } | { ok: false; reason: string };

/**
 * Checks a path written in a bundle manifest (bundle.yaml) or an agent's start-file reference (any release) by its shape, before any filesystem call (docs/security.md case 85):
 * relative, POSIX separators only, no NUL or other control characters, not over-long, and still inside
 * its base folder after normalisation. Returns the normalised path. Symlinks are checked later, on the
 * real path.
 */
export function checkManifestPath(value: string): ManifestPathCheck {
  if (/[\u0000-\u001f\u007f]/.test(value)) return { ok: false, reason: "contains a control character" };
  if (value.length > maxManifestPathLength) return { ok: false, reason: "is too long" };
  if (value.includes("\\")) return { ok: false, reason: "contains a backslash" };
  if (value.startsWith("/") || /^[A-Za-z]:/.test(value)) return { ok: false, reason: "is absolute" };
  const normalised = posix.normalize(value);
  if (normalised === ".." || normalised.startsWith("../")) return { ok: false, reason: "leaves its folder" };
  if (normalised === "." || normalised === "") return { ok: false, reason: "names the folder itself" };
  return { ok: true, path: normalised.replace(/\/$/, "") };
}
