import { createHash } from "node:crypto";

/*
 * No dependency: git's index format (Documentation/gitformat-index.txt) is read here for two things only, the
 * entries of a small index the host's git wrote and the root of an index's cache tree, each far cheaper in process
 * than a git run that reads the whole file and writes it again (docs/repositories.md "What changed, without reading
 * every file").
 */

/** One entry of an index: a path at a merge stage, with its mode and object id. */
export interface IndexEntry {
  path: string;
  /** git's mode as a number (0o100644, 0o100755, 0o120000, 0o160000) */
  mode: number;
  id: string;
  stage: number;
}

/** What an index holds, as far as it is read here. */
export interface IndexContent {
  entries: IndexEntry[];
  /** the root tree of the cache tree when every node of it is valid (as `git write-tree` takes it), else undefined */
  cacheTree: string | undefined;
}

const entryFixedBytes = 62;
const extendedFlag = 0x4000;

/**
 * The entries and the cache tree's root of an index file's bytes, or undefined when they are not an index this
 * reads as git would: a wrong checksum, a version other than 2–4, a damaged entry, or an extension git requires its
 * reader to understand (a split or sparse index). Without `withEntries`, the entries are only stepped over (an
 * index of 50,000 files: a few milliseconds instead of tens) and none is returned.
 */
export function readIndex(bytes: Buffer, withEntries = true): IndexContent | undefined {
  if (bytes.length < 12 + 20 || bytes.toString("latin1", 0, 4) !== "DIRC") return undefined;
  const body = bytes.subarray(0, bytes.length - 20);
  if (!createHash("sha1").update(body).digest().equals(bytes.subarray(bytes.length - 20))) return undefined;
  const version = body.readUInt32BE(4);
  if (version < 2 || version > 4) return undefined;
  const count = body.readUInt32BE(8);
  const entries: IndexEntry[] = [];
  let at = 12;
  let previous: Buffer = Buffer.alloc(0);
  let previousLength = 0;
  for (let index = 0; index < count; index += 1) {
    if (at + entryFixedBytes > body.length) return undefined;
    const start = at;
    const flags = body.readUInt16BE(at + 60);
    let nameAt = at + entryFixedBytes;
    if (flags & extendedFlag) {
      if (version < 3) return undefined;
      nameAt += 2;
    }
    let nameLength: number;
    let name: Buffer | undefined;
    if (version === 4) {
      const strip = readVarint(body, nameAt);
      if (strip === undefined || strip.value > previousLength) return undefined;
      const end = body.indexOf(0, strip.next);
      if (end === -1) return undefined;
      nameLength = previousLength - strip.value + end - strip.next;
      if (withEntries) name = Buffer.concat([previous.subarray(0, previousLength - strip.value), body.subarray(strip.next, end)]);
      at = end + 1;
    } else {
      // the length is in the flags, as git reads it, up to 4,094 bytes; a longer name ends at its NUL
      nameLength = flags & 0xfff;
      if (nameLength === 0xfff) {
        const end = body.indexOf(0, nameAt + nameLength);
        if (end === -1) return undefined;
        nameLength = end - nameAt;
      }
      if (withEntries) name = body.subarray(nameAt, nameAt + nameLength);
      // 1 to 8 NULs after the name, so that each entry's length is a multiple of 8
      at += (nameAt - at + nameLength + 8) & ~7;
    }
    if (at > body.length) return undefined;
    previousLength = nameLength;
    if (name === undefined) continue;
    previous = name;
    entries.push({ path: name.toString("utf8"), mode: body.readUInt32BE(start + 24), id: body.toString("hex", start + 40, start + 60), stage: (flags >> 12) & 3 });
  }
  let cacheTree: string | undefined;
  while (at < body.length) {
    if (at + 8 > body.length) return undefined;
    const signature = body.toString("latin1", at, at + 4);
    const size = body.readUInt32BE(at + 4);
    const data = body.subarray(at + 8, at + 8 + size);
    if (data.length !== size) return undefined;
    // an extension whose name starts with a capital is optional; any other must be understood
    if (!/^[A-Z]/.test(signature)) return undefined;
    if (signature === "TREE") cacheTree = fullyValidRoot(data);
    at += 8 + size;
  }
  return { entries, cacheTree };
}

/**
 * An index (version 2) of `entries` at stage 0, with no file times or sizes: git finds each one changed and hashes
 * the file again, which is what a small index made to stage a few paths wants.
 */
export function encodeIndex(entries: ReadonlyArray<Omit<IndexEntry, "stage">>): Buffer {
  const named = entries.map((entry) => ({ entry, name: Buffer.from(entry.path, "utf8") })).sort((a, b) => Buffer.compare(a.name, b.name));
  const header = Buffer.alloc(12);
  header.write("DIRC", 0, "latin1");
  header.writeUInt32BE(2, 4);
  header.writeUInt32BE(named.length, 8);
  const parts = [header];
  for (const { entry, name } of named) {
    const fixed = Buffer.alloc(entryFixedBytes);
    fixed.writeUInt32BE(entry.mode, 24);
    fixed.write(entry.id, 40, "hex");
    fixed.writeUInt16BE(Math.min(name.length, 0xfff), 60);
    const length = (entryFixedBytes + name.length + 8) & ~7;
    parts.push(fixed, name, Buffer.alloc(length - entryFixedBytes - name.length));
  }
  const body = Buffer.concat(parts);
  return Buffer.concat([body, createHash("sha1").update(body).digest()]);
}

/** The root's id of a cache tree extension when every node of it is valid (and their count is the one they name), else undefined. */
function fullyValidRoot(data: Buffer): string | undefined {
  let at = 0;
  let root: string | undefined;
  let nodes = 0;
  let named = 1;
  while (at < data.length) {
    const nameEnd = data.indexOf(0, at);
    const lineEnd = data.indexOf(0x0a, nameEnd + 1);
    if (nameEnd === -1 || lineEnd === -1) return undefined;
    const counts = /^(-?\d+) (\d+)$/.exec(data.toString("latin1", nameEnd + 1, lineEnd));
    if (!counts) return undefined;
    // -1 entries: a node invalidated by a change since its tree was written
    if (Number(counts[1]) < 0) return undefined;
    if (lineEnd + 21 > data.length) return undefined;
    root ??= data.toString("hex", lineEnd + 1, lineEnd + 21);
    nodes += 1;
    named += Number(counts[2]);
    at = lineEnd + 21;
  }
  return nodes === named ? root : undefined;
}

/** git's offset varint of an index version 4 entry (each continuation adds one before shifting). */
function readVarint(bytes: Buffer, at: number): { value: number; next: number } | undefined {
  let position = at;
  let byte = bytes[position++];
  if (byte === undefined) return undefined;
  let value = byte & 0x7f;
  while (byte & 0x80) {
    byte = bytes[position++];
    if (byte === undefined || value > 0xffffff) return undefined;
    value = ((value + 1) << 7) | (byte & 0x7f);
  }
  return { value, next: position };
}
