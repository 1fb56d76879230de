import { opendir } from "node:fs/promises";
import path from "node:path";
import { skillFileName } from "./install-layout.js";

/** Bounds of a skill's file list. */
const skillFileLimits = { maxFiles: 200, maxDepth: 4, maxEntries: 2000 };
const skippedFolders = new Set(["node_modules", ".git", "__pycache__"]);

/**
 * A skill's other files (steps, references, assets, scripts) relative to its folder `realFolder` (already
 * resolved and checked by the caller), sorted in byte order: at most `maxFiles`, `maxDepth` folders deep,
 * without SKILL.md itself, links, `node_modules`, `.git`, `__pycache__` or names `isSkipped` refuses (the
 * tool-runner's protected names). `truncated` says a limit was reached.
 */
export async function listSkillFolder(realFolder: string, isSkipped: (name: string) => boolean): Promise<{ files: string[]; truncated: boolean }> {
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
      if (isSkipped(entry.name) || skippedFolders.has(entry.name)) continue;
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
  await walk(realFolder, "", 0);
  return { files: files.sort(), truncated };
}
