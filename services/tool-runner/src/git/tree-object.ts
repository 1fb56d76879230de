import { createHash, randomUUID } from "node:crypto";
import { mkdir, rename, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { deflate } from "node:zlib";
import { AppError } from "@agent-orchestrator/shared/runtime";

/*
 * No dependency: git's tree and loose-object formats are a few lines each, and writing them here saves a process
 * per object on every file a tool writes (docs/repositories.md "A tool-runner's cache").
 */

/** What a tree entry is, by its mode. */
export type EntryKind = "file" | "executable" | "symlink" | "tree" | "submodule";

/** One entry of a git tree. */
export interface TreeEntry {
  name: string;
  kind: EntryKind;
  /** the object's id (40 hex) */
  id: string;
}

const modeOf: Record<EntryKind, string> = { file: "100644", executable: "100755", symlink: "120000", tree: "40000", submodule: "160000" };

const deflateAsync = promisify(deflate);

/** The entries of a tree object's content; a mode git would not write is refused. */
export function parseTree(content: Buffer): TreeEntry[] {
  const entries: TreeEntry[] = [];
  let at = 0;
  while (at < content.length) {
    const space = content.indexOf(0x20, at);
    const nul = content.indexOf(0x00, space + 1);
    if (space === -1 || nul === -1 || nul + 21 > content.length) throw new AppError("INTERNAL", "A tree object is damaged");
    const mode = content.subarray(at, space).toString("latin1");
    const name = content.subarray(space + 1, nul).toString("utf8");
    const id = content.subarray(nul + 1, nul + 21).toString("hex");
    entries.push({ name, kind: kindOf(mode), id });
    at = nul + 21;
  }
  return entries;
}

/** A tree object's content for `entries`, in git's order (a tree's name compares as if it ended in `/`). */
export function encodeTree(entries: readonly TreeEntry[]): Buffer {
  const sorted = [...entries].sort((a, b) => Buffer.compare(sortKey(a), sortKey(b)));
  return Buffer.concat(
    sorted.flatMap((entry) => [Buffer.from(`${modeOf[entry.kind]} ${entry.name}\0`, "utf8"), Buffer.from(entry.id, "hex")]),
  );
}

/** The id git gives an object of `type` holding `content`. */
export function objectId(type: "blob" | "tree" | "commit", content: Uint8Array): string {
  return createHash("sha1").update(`${type} ${content.byteLength}\0`).update(content).digest("hex");
}

/**
 * Writes an object as a loose object into `objectDirectory` (unless one is there) and returns its id. Written
 * to a temporary name and renamed, so a reader never sees half of one.
 */
export async function writeLooseObject(objectDirectory: string, type: "blob" | "tree", content: Uint8Array): Promise<string> {
  const id = objectId(type, content);
  const folder = path.join(objectDirectory, id.slice(0, 2));
  const file = path.join(folder, id.slice(2));
  if (await stat(file).then(() => true, () => false)) return id;
  await mkdir(folder, { recursive: true });
  const compressed = await deflateAsync(Buffer.concat([Buffer.from(`${type} ${content.byteLength}\0`), content]));
  const temporary = path.join(folder, `tmp-${randomUUID()}`);
  await writeFile(temporary, compressed, { mode: 0o444 });
  await rename(temporary, file);
  return id;
}

function kindOf(mode: string): EntryKind {
  switch (mode) {
    case "100644":
    case "100664":
      return "file";
    case "100755":
      return "executable";
    case "120000":
      return "symlink";
    case "40000":
      return "tree";
    case "160000":
      return "submodule";
    default:
      throw new AppError("INTERNAL", `A tree entry has a mode git does not write: ${mode.slice(0, 10)}`);
  }
}

function sortKey(entry: TreeEntry): Buffer {
  return Buffer.from(entry.kind === "tree" ? `${entry.name}/` : entry.name, "utf8");
}
