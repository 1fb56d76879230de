import { opendir, realpath } from "node:fs/promises";
import path from "node:path";
import { skillFileName } from "@agent-orchestrator/shared";
import { isProtectedSegment, relativeInside, type RootEntry } from "../sandbox/index.js";

/** Bounds of a skill's file list. */
export const skillFileLimits = { maxFiles: 200, maxDepth: 4, maxEntries: 2000 };
const skippedFolders = new Set(["node_modules", ".git", "__pycache__"]);

/**
 * A skill's other files (steps, references, assets, scripts) relative to its folder, sorted in byte order:
 * at most `maxFiles`, `maxDepth` folders deep, without SKILL.md itself, protected names or links. Nothing is
 * listed unless the folder's real location lies in a readable root. `truncated` says a limit was reached.
 */
export async function listSkillFiles(folder: string, readable: readonly RootEntry[]): Promise<{ files: string[]; truncated: boolean }> {
  const real = await realpath(folder).catch(() => undefined);
  if (real === undefined || !readable.some((root) => relativeInside(root.real, real) !== undefined)) return { files: [], truncated: false };
  const files: string[] = [];
  let entries = 0;
  let truncated = false;
  const walk = async (current: string, relative: string, depth: number): Promise<void> => {
    const directory = await opendir(current).catch(() => undefined);
    if (!directory) return;
    const children: Array<{ name: string; folder: boolean }> = [];
    for await (const entry of directory) {
      if (++entries > skillFileLimits.maxEntries) {
        truncated = true;
        break;
      }
      if (isProtectedSegment(entry.name) || skippedFolders.has(entry.name)) continue;
      if (entry.isDirectory()) children.push({ name: entry.name, folder: true });
      else if (entry.isFile() && !(depth === 0 && entry.name === skillFileName)) children.push({ name: entry.name, folder: false });
    }
    children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const child of children) {
      const childRelative = relative === "" ? child.name : `${relative}/${child.name}`;
      if (!child.folder) {
        if (files.length >= skillFileLimits.maxFiles) {
          truncated = true;
          return;
        }
        files.push(childRelative);
      } else if (depth + 1 < skillFileLimits.maxDepth) await walk(path.join(current, child.name), childRelative, depth + 1);
      else truncated = true;
    }
  };
  await walk(real, "", 0);
  return { files: files.sort(), truncated };
}
