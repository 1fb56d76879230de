import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { lstat, mkdir, open, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { inflateSync } from "node:zlib";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { isAcceptedRefName } from "@agent-orchestrator/shared/wire";
import { runGit } from "../git/git-command.js";

/*
 * A command's `.git` is the command's: anything in it may be a link to a host file, a FIFO or garbage. The host
 * never runs git in it (its config and hooks are the command's); it reads the few things it keeps as data, each
 * file opened without following a link and checked to be a regular file (docs/repositories.md "withWorkingTree").
 * No command runs while this reads: the sandbox's processes are gone when `fn` returns.
 */

const readFlags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const objectIdPattern = /^[0-9a-f]{40}$/;

/** What HEAD says: on a branch, or at a commit. */
export type CommandHead = { branch: string } | { commit: string };

/** The bytes of `file` when it is a regular file of at most `maxBytes`, else undefined (missing, a link, a FIFO, too large). */
export async function readPlainFile(file: string, maxBytes: number): Promise<Buffer | undefined> {
  const seen = await lstat(file).catch(() => undefined);
  if (!seen?.isFile() || seen.size > maxBytes) return undefined;
  const handle = await open(file, readFlags).catch(() => undefined);
  if (!handle) return undefined;
  try {
    const opened = await handle.stat();
    if (!opened.isFile() || opened.ino !== seen.ino || opened.dev !== seen.dev || opened.size > maxBytes) return undefined;
    const bytes = Buffer.alloc(opened.size);
    const { bytesRead } = await handle.read(bytes, 0, opened.size, 0);
    return bytes.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** What tells one index file from another without reading it: its inode, its size, and git's checksum at its end. */
export interface IndexSeal {
  inode: number;
  size: number;
  checksum: Buffer;
}

/** The seal of the index at `file` when it is a regular file, else undefined. */
export async function readIndexSeal(file: string): Promise<IndexSeal | undefined> {
  const handle = await open(file, readFlags).catch(() => undefined);
  if (!handle) return undefined;
  try {
    const opened = await handle.stat();
    if (!opened.isFile() || opened.size < 32) return undefined;
    const checksum = Buffer.alloc(20);
    const { bytesRead } = await handle.read(checksum, 0, 20, opened.size - 20);
    return bytesRead === 20 ? { inode: opened.ino, size: opened.size, checksum } : undefined;
  } finally {
    await handle.close();
  }
}

/** HEAD of the command's `.git`, or undefined when it is not one git would write. */
export async function readCommandHead(gitDirectory: string): Promise<CommandHead | undefined> {
  const text = (await readPlainFile(path.join(gitDirectory, "HEAD"), 1024))?.toString("latin1").trim();
  if (text === undefined) return undefined;
  if (objectIdPattern.test(text)) return { commit: text };
  const match = /^ref: (refs\/heads\/.+)$/.exec(text);
  return match?.[1] && isAcceptedRefName(match[1]) ? { branch: match[1].slice("refs/heads/".length) } : undefined;
}

/** The commit the ref `name` (`refs/heads/chat/s1`) names in the command's `.git`: its loose file, else `packed-refs`. */
export async function readCommandRef(gitDirectory: string, name: string): Promise<string | undefined> {
  if (!isAcceptedRefName(name)) return undefined;
  const loose = await readInside(gitDirectory, name.split("/"), 1024);
  const text = loose?.toString("latin1").trim();
  if (text !== undefined && objectIdPattern.test(text)) return text;
  const packed = (await readPlainFile(path.join(gitDirectory, "packed-refs"), 16 * 1024 * 1024))?.toString("latin1") ?? "";
  for (const line of packed.split("\n")) {
    const [id, ref] = line.split(" ");
    if (ref === name && id !== undefined && objectIdPattern.test(id)) return id;
  }
  return undefined;
}

/** What was taken from a command's objects. */
export interface TakenObjects {
  /** the command's files that were taken, to remove once their objects are stored */
  files: string[];
  bytes: number;
}

/**
 * Takes the objects a command wrote into its `.git/objects` into `incoming` (a folder of the host's): each
 * loose object inflated and hashed, and kept only when its content has the id its name claims; each pack copied
 * and indexed by the host (`git index-pack --strict`: ids from the content, git's fsck checks on every object).
 * `objects/info/alternates` is never read. Past `maxBytes` in all, QUOTA_EXCEEDED.
 */
export async function takeCommandObjects(gitDirectory: string, incoming: string, hostGitDir: string, alternates: readonly string[], maxBytes: number): Promise<TakenObjects> {
  const objects = path.join(gitDirectory, "objects");
  const taken: TakenObjects = { files: [], bytes: 0 };
  if (!(await isPlainFolder(objects))) return taken;
  const count = (bytes: number) => {
    taken.bytes += bytes;
    if (taken.bytes > maxBytes) throw new AppError("QUOTA_EXCEEDED", `The command wrote more than ${maxBytes} bytes of git objects (REPOSITORY_PERSIST_MAX_BYTES). Nothing was kept.`);
  };
  for (const folder of await readdir(objects)) {
    if (!/^[0-9a-f]{2}$/.test(folder) || !(await isPlainFolder(path.join(objects, folder)))) continue;
    for (const name of await readdir(path.join(objects, folder))) {
      if (!/^[0-9a-f]{38}$/.test(name)) continue;
      const file = path.join(objects, folder, name);
      const compressed = await readPlainFile(file, maxBytes);
      if (!compressed) continue;
      count(compressed.length);
      if (!isLooseObject(compressed, `${folder}${name}`, maxBytes)) continue;
      await mkdir(path.join(incoming, folder), { recursive: true });
      await writeFile(path.join(incoming, folder, name), compressed, { mode: 0o444 });
      taken.files.push(file);
    }
  }
  const packs = path.join(objects, "pack");
  if (await isPlainFolder(packs)) {
    for (const name of await readdir(packs)) {
      if (!/^pack-[0-9a-f]{40}\.pack$/.test(name)) continue;
      const bytes = await readPlainFile(path.join(packs, name), maxBytes);
      if (!bytes) continue;
      count(bytes.length);
      const copy = path.join(incoming, "pack", name);
      await mkdir(path.dirname(copy), { recursive: true });
      await writeFile(copy, bytes, { mode: 0o444 });
      await runGit({ gitDir: hostGitDir, objectDirectory: incoming, alternates, args: ["index-pack", "--strict", copy] });
      taken.files.push(path.join(packs, name), path.join(packs, name.replace(/\.pack$/, ".idx")));
    }
  }
  return taken;
}

/** Whether `compressed` inflates to a git object whose id is `id` (within `maxBytes`). */
function isLooseObject(compressed: Buffer, id: string, maxBytes: number): boolean {
  let raw: Buffer;
  try {
    raw = inflateSync(compressed, { maxOutputLength: maxBytes });
  } catch {
    return false;
  }
  const nul = raw.indexOf(0);
  const header = /^(blob|tree|commit|tag) (\d+)$/.exec(raw.subarray(0, Math.max(0, nul)).toString("latin1"));
  if (nul === -1 || !header || Number(header[2]) !== raw.length - nul - 1) return false;
  return createHash("sha1").update(raw).digest("hex") === id;
}

/** The bytes of `names` below `folder`, every component a real folder and the last a regular file. */
async function readInside(folder: string, names: readonly string[], maxBytes: number): Promise<Buffer | undefined> {
  let at = folder;
  for (const name of names.slice(0, -1)) {
    at = path.join(at, name);
    if (!(await isPlainFolder(at))) return undefined;
  }
  return readPlainFile(path.join(at, names[names.length - 1] ?? ""), maxBytes);
}

/** A folder, not a link to one. */
export async function isPlainFolder(folder: string): Promise<boolean> {
  return (await lstat(folder).catch(() => undefined))?.isDirectory() === true;
}
