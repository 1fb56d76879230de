import { opendir } from "node:fs/promises";
import path from "node:path";
import { relativeInside } from "@agent-orchestrator/shared/runtime";
import { isProtectedSegment, isServableName } from "../sandbox/index.js";

/** Limits of one `file:` glob. */
export interface GlobLimits {
  /** files returned at most */
  maxFiles: number;
  /** directory entries looked at, in all */
  maxEntries: number;
  /** folders below the base, at most */
  maxDepth: number;
}

export const factGlobLimits: GlobLimits = { maxFiles: 20, maxEntries: 5000, maxDepth: 8 };
const skippedFolders = new Set(["node_modules", ".git"]);

/** True when a path segment holds glob syntax. */
export function hasGlob(segment: string): boolean {
  return /[*?[]/.test(segment);
}

/**
 * Files under `base` (a lexical host folder) matching `segments` (`**`, `*`, `?` and `[…]` per segment), in
 * byte order, descending only into folders that are inside a readable root or lead to one, so a glob never
 * walks the rest of the project. Links are not followed; protected names, names the tools cannot open,
 * `node_modules` and `.git` are skipped. Returns the matches (at most `maxFiles`) and whether a limit stopped the walk. The caller reads
 * each match through the sandbox, which checks it again.
 */
export async function expandGlob(
  base: string,
  segments: readonly string[],
  readable: readonly string[],
  limits: GlobLimits = factGlobLimits,
): Promise<{ files: string[]; limited: boolean }> {
  const matchers = segments.map((segment) => (segment === "**" ? "**" : segmentPattern(segment)));
  const files = new Set<string>();
  let entries = 0;
  let limited = false;
  const inside = (folder: string) => readable.some((root) => relativeInside(root, folder) !== undefined);
  const leadsTo = (folder: string) => readable.some((root) => relativeInside(folder, root) !== undefined);

  // depth-first over (folder, position in the pattern); visits each pair once
  const seen = new Set<string>();
  const walk = async (folder: string, position: number, depth: number): Promise<void> => {
    const key = `${position}\0${folder}`;
    if (seen.has(key) || limited || position >= matchers.length) return;
    seen.add(key);
    const matcher = matchers[position];
    if (matcher === "**") await walk(folder, position + 1, depth);
    if (depth >= limits.maxDepth || !(inside(folder) || leadsTo(folder))) return;
    const directory = await opendir(folder).catch(() => undefined);
    if (!directory) return;
    const children: Array<{ name: string; isFolder: boolean; isFile: boolean }> = [];
    for await (const entry of directory) {
      if (++entries > limits.maxEntries) {
        limited = true;
        break;
      }
      // a name the sandbox would refuse to open is never a match: notes name the matches (docs/security.md case 142)
      if (isProtectedSegment(entry.name) || skippedFolders.has(entry.name) || !isServableName(entry.name)) continue;
      children.push({ name: entry.name, isFolder: entry.isDirectory(), isFile: entry.isFile() });
    }
    children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const lastPosition = matchers.length - 1;
    for (const child of children) {
      const childPath = path.join(folder, child.name);
      const matches = matcher === "**" || matcher?.test(child.name) === true;
      if (child.isFolder && matches) await walk(childPath, matcher === "**" ? position : position + 1, depth + 1);
      else if (child.isFile && matches && position === lastPosition && inside(childPath)) {
        files.add(childPath);
        if (files.size >= limits.maxFiles) limited = true;
      }
      if (limited) return;
    }
  };
  await walk(base, 0, 0);
  return { files: [...files].sort(), limited };
}

/**
 * Whether a relative path (its segments) matches glob `segments` (`**` any number of folders, `*`, `?`, `[…]`
 * within one segment): the same rules as `expandGlob`, for files that are not on disk (the file store).
 */
export function matchesGlob(pathSegments: readonly string[], segments: readonly string[]): boolean {
  const matchers = segments.map((segment) => (segment === "**" ? "**" : segmentPattern(segment)));
  const match = (at: number, position: number): boolean => {
    if (position === matchers.length) return at === pathSegments.length;
    const matcher = matchers[position];
    if (matcher === "**") return match(at, position + 1) || (at < pathSegments.length - 1 && match(at + 1, position));
    return at < pathSegments.length && matcher?.test(pathSegments[at] ?? "") === true && match(at + 1, position + 1);
  };
  return match(0, 0);
}

/** One path segment of a glob as a regular expression; `[…]` classes keep only letters, digits, `-` and `!`. */
function segmentPattern(segment: string): RegExp {
  let source = "";
  for (let index = 0; index < segment.length; index++) {
    const char = segment[index] ?? "";
    if (char === "*") source += "[^/]*";
    else if (char === "?") source += "[^/]";
    else if (char === "[") {
      const end = segment.indexOf("]", index + 1);
      const body = end > index ? segment.slice(index + 1, end) : "";
      if (end > index && /^!?[\w-]+$/.test(body)) {
        source += `[${body.startsWith("!") ? `^${body.slice(1)}` : body}]`;
        index = end;
      } else source += "\\[";
    } else source += char.replace(/[.+^${}()|\\\]]/g, "\\$&");
  }
  return new RegExp(`^${source}$`, "s");
}
