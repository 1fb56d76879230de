import type { Dirent } from "node:fs";
import { lstat, readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { parseJson, type Logger } from "@agent-orchestrator/shared/runtime";
import { subjectTokenPattern } from "@agent-orchestrator/shared/wire";
import { findProtectedSegment } from "../paths/protected-names.js";
import { isServablePath } from "../paths/servable-name.js";
import type { FileChange } from "../store/file-change.js";
import type { FileStore } from "../store/file-store.js";

// what the system kept in a session folder before projects: not the chat's files. The manifest came with its
// lock and the lock's drafts and set-asides (`manifest.json.lock`, `manifest.json.lock.<token>.draft`), which
// the sandbox then refused as `manifest.json*`; a write cut short left a temp file `.ao-<hex>.tmp` anywhere.
const systemNames = new Set([".tool-calls"]);
const isSystemName = (name: string, top: boolean) => (top && (systemNames.has(name) || name.startsWith("manifest.json"))) || /^\.ao-[0-9a-f]+\.tmp$/.test(name);
const maxDepth = 32;

/**
 * Moves the chats' files a deployment wrote to `<OUTPUT_ROOT>/<session-id>/` before projects into each chat's
 * scratch space in the store, once (docs/projects.md "Moving an existing deployment"): a chat whose space
 * already exists is left as it is, so a second start, or a second replica, moves nothing again. Output
 * variables pointed into the session folder then, so these files keep their `{session-folder}/…` paths.
 * Links, special files, protected and system names are not moved. The folder itself is left for the operator.
 * It reads OUTPUT_ROOT at every start, so it can go (with the OUTPUT_ROOT setting) in the release after every
 * deployment from before projects has started a version with projects once.
 */
export async function moveLegacySessions(files: FileStore, outputRoot: string, logger: Logger): Promise<{ chats: number; files: number }> {
  const entries = await readdir(outputRoot, { withFileTypes: true }).catch((): Dirent[] => []);
  let chats = 0;
  let moved = 0;
  for (const entry of entries) {
    if (!entry.isDirectory() || !subjectTokenPattern.test(entry.name)) continue;
    const space = { kind: "session" as const, id: entry.name };
    if ((await files.index(space)).kvRevision !== 0) continue;
    const folder = path.join(outputRoot, entry.name);
    const changes: FileChange[] = [];
    await collect(folder, "", changes, 0);
    if (changes.length === 0) continue;
    const owner = await legacyOwner(folder);
    try {
      await files.apply(space, changes, { user: owner, session_id: entry.name });
      chats += 1;
      moved += changes.length;
    } catch (error) {
      logger.warn({ session_id: entry.name, err: error }, "a chat's files from before projects were not moved");
    }
  }
  if (chats > 0) logger.info({ chats, files: moved, from: outputRoot }, "moved the chats' files of OUTPUT_ROOT into the file store; the folder is no longer used");
  return { chats, files: moved };
}

async function collect(folder: string, relative: string, changes: FileChange[], depth: number): Promise<void> {
  if (depth > maxDepth) return;
  const entries = await readdir(path.join(folder, relative), { withFileTypes: true }).catch((): Dirent[] => []);
  for (const entry of entries) {
    const name = relative === "" ? entry.name : `${relative}/${entry.name}`;
    if (isSystemName(entry.name, relative === "") || findProtectedSegment(name) !== undefined || !isServablePath(name)) continue;
    const stats = await lstat(path.join(folder, name));
    if (stats.isDirectory()) await collect(folder, name, changes, depth + 1);
    else if (stats.isFile()) changes.push({ path: name, content: await readFile(path.join(folder, name)) });
  }
}

/** The owner a session's old manifest names, for the revisions' author. */
async function legacyOwner(folder: string): Promise<string> {
  const text = await readFile(path.join(folder, "manifest.json"), "utf8").catch(() => "");
  const parsed = parseJson(text);
  const owner = parsed.ok && typeof parsed.value === "object" && parsed.value !== null ? (parsed.value as { owner?: unknown }).owner : undefined;
  return typeof owner === "string" && owner !== "" ? owner : "unknown";
}
