import type { Dirent } from "node:fs";
import { lstat, readdir } from "node:fs/promises";
import path from "node:path";

/** The regular files of a folder tree: relative path (with `/`) → what tells a change. */
export interface SessionSnapshot {
  files: Map<string, { size: number; mtimeMs: number; ino: number }>;
  /** the walk stopped at its bound; files beyond it are not seen */
  truncated: boolean;
}

/** Bounds of one walk: a script can make a session folder of any shape. */
export const snapshotLimits = { maxEntries: 10_000, maxDepth: 32 };

/**
 * Lists the regular files below `folder` without following links (lstat only), breadth first, at most
 * `maxEntries` entries and `maxDepth` levels. Entries that vanish during the walk are skipped.
 */
export async function snapshotSession(folder: string, limits = snapshotLimits): Promise<SessionSnapshot> {
  const files: SessionSnapshot["files"] = new Map();
  let seen = 0;
  let truncated = false;
  let level: string[] = [""];
  for (let depth = 0; level.length > 0; depth++) {
    if (depth >= limits.maxDepth) {
      truncated = true;
      break;
    }
    const next: string[] = [];
    for (const relative of level) {
      const entries = await readdir(path.join(folder, relative), { withFileTypes: true }).catch((): Dirent[] => []);
      for (const entry of entries) {
        if (++seen > limits.maxEntries) return { files, truncated: true };
        const child = relative === "" ? entry.name : `${relative}/${entry.name}`;
        if (entry.isDirectory()) next.push(child);
        else if (entry.isFile()) {
          const stats = await lstat(path.join(folder, child)).catch(() => undefined);
          if (stats?.isFile()) files.set(child, { size: stats.size, mtimeMs: stats.mtimeMs, ino: stats.ino });
        }
      }
    }
    level = next;
  }
  return { files, truncated };
}
