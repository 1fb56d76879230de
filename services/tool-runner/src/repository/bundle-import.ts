import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { Readable } from "node:stream";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { GitFailed, runGit } from "../git/git-command.js";
import { checkedImport, repositoryRefused, type ImportLimits, type ImportedPack, type ImportedRef } from "./imported-pack.js";

const headerMaxBytes = 4 * 1024 * 1024;
// a pack's header (12 bytes) and trailing checksum (20)
const packFrameBytes = 32;
// the least one object takes in a pack: a byte of type and size, and a zlib stream (2 bytes of header, an empty block, 4 of checksum)
const minObjectBytes = 8;

/** A bundle's header: its refs, and the commit its HEAD names if it has one. */
interface BundleHeader {
  refs: ImportedRef[];
  head: string | undefined;
}

/** A bundle as it is read: its size, and its bytes in order (a file's, or a staged upload's straight from the store). */
export interface BundleSource {
  size: number;
  chunks: AsyncIterable<Uint8Array>;
}

/** A bundle file on this disk as a source. */
export async function bundleFile(file: string): Promise<BundleSource> {
  return { size: (await stat(file)).size, chunks: createReadStream(file) };
}

/**
 * A git bundle (`git bundle create … --all`) taken into the empty bare repository `gitDir` (docs/repositories.md
 * "What a user does"). The header is read here; the pack after it streams through `git index-pack --strict
 * --stdin` (never held whole: a 1 GB bundle goes from the store into git chunk by chunk), which names every object
 * by its content and applies git's fsck checks (a tree naming `.git`, RELIABILITY case 92), something `git fetch`
 * from a bundle does not do in git 2.39. A bundle that needs commits it does not hold (made with a range) is
 * refused: a repository here starts whole.
 */
export async function importBundle(source: BundleSource, gitDir: string, limits: ImportLimits): Promise<ImportedPack> {
  const { size } = source;
  if (size > limits.maxBytes + headerMaxBytes) throw repositoryRefused(`the bundle has ${size} bytes; at most ${limits.maxBytes} (REPOSITORY_MAX_BYTES)`);
  const chunks = source.chunks[Symbol.asyncIterator]();
  try {
    return await importPack(chunks, size, gitDir, limits);
  } finally {
    // a bundle refused before its end: its file closed, its reading from the store stopped
    await chunks.return?.();
  }
}

async function importPack(chunks: AsyncIterator<Uint8Array>, size: number, gitDir: string, limits: ImportLimits): Promise<ImportedPack> {
  let pending = Buffer.alloc(0);
  // the header, and the pack's own 12, are read before git sees a byte
  const readUntil = async (done: (bytes: Buffer) => boolean) => {
    while (!done(pending) && pending.byteLength <= headerMaxBytes) {
      const next = await chunks.next();
      if (next.done === true) break;
      pending = Buffer.concat([pending, next.value]);
    }
  };
  await readUntil((bytes) => bytes.includes("\n\n"));
  const end = pending.indexOf("\n\n");
  if (end === -1) throw repositoryRefused("not a git bundle (make one with `git bundle create repo.bundle --all`)");
  const header = parseHeader(pending.subarray(0, end + 1).toString("utf8"));
  const packOffset = end + 2;
  await readUntil((bytes) => bytes.byteLength >= packOffset + 12);
  refuseImpossiblePack(pending.subarray(packOffset, packOffset + 12), size - packOffset);
  let sourceFailure: unknown;
  const first = pending.subarray(packOffset);
  const pack = async function* () {
    yield first;
    try {
      for (let next = await chunks.next(); next.done !== true; next = await chunks.next()) yield next.value;
    } catch (error) {
      sourceFailure = error;
      throw error;
    }
  };
  try {
    // two threads: an import shares its tool-runner's cores and memory (each thread keeps its own delta bases)
    await runGit({ gitDir, args: ["index-pack", "--strict", "--threads=2", "--stdin"], input: Readable.from(pack()), timeoutMs: 30 * 60_000 });
  } catch (error) {
    if (sourceFailure !== undefined) throw new AppError("WRITE_FAILED", "The bundle could not be read back from the uploads store; send it again", { cause: sourceFailure });
    if (error instanceof GitFailed) throw repositoryRefused(indexPackReason(error.stderr), error);
    throw error;
  }
  const preferred = header.refs.filter((ref) => ref.name.startsWith("refs/heads/") && ref.id === header.head).map((ref) => ref.name.slice("refs/heads/".length));
  await runGit({ gitDir, args: ["update-ref", "--stdin"], input: header.refs.filter((ref) => ref.name.startsWith("refs/heads/") || ref.name.startsWith("refs/tags/")).map((ref) => `create ${ref.name} ${ref.id}\n`).join("") }).catch((error: unknown) => {
    throw repositoryRefused("a branch or tag name git does not accept", error);
  });
  return checkedImport(gitDir, header.refs, preferred.find((name) => name === "main" || name === "master") ?? preferred[0], limits);
}

/** The header's lines (the text before the blank line that ends it). */
function parseHeader(text: string): BundleHeader {
  const [signature, ...lines] = text.split("\n").slice(0, -1);
  if (signature !== "# v2 git bundle" && signature !== "# v3 git bundle") throw repositoryRefused("not a git bundle (make one with `git bundle create repo.bundle --all`)");
  const refs: ImportedRef[] = [];
  let head: string | undefined;
  for (const line of lines) {
    if (line.startsWith("@")) {
      if (line !== "@object-format=sha1") throw repositoryRefused(`the bundle needs ${JSON.stringify(line.slice(1, 80))}; only whole sha1 repositories are taken`);
      continue;
    }
    if (line.startsWith("-")) throw repositoryRefused("the bundle needs commits it does not hold; make it with --all");
    const match = /^([0-9a-f]{40}) (.+)$/.exec(line);
    if (!match?.[1] || match[2] === undefined) throw repositoryRefused("its header has a line git does not write");
    if (match[2] === "HEAD") head = match[1];
    else refs.push({ name: match[2], id: match[1] });
  }
  return { refs, head };
}

/**
 * Refuses a pack whose header is not a git pack's or claims more objects than its bytes can hold (an object takes
 * at least a byte of header and a zlib stream of a few): `git index-pack` sizes its tables by the claimed count
 * before it reads an object (case 334).
 */
function refuseImpossiblePack(header: Buffer, packBytes: number): void {
  const version = header.byteLength === 12 ? header.readUInt32BE(4) : 0;
  if (header.toString("latin1", 0, 4) !== "PACK" || (version !== 2 && version !== 3)) throw repositoryRefused("its pack is damaged or not a git pack");
  const objects = header.readUInt32BE(8);
  const room = Math.floor((packBytes - packFrameBytes) / minObjectBytes);
  if (objects > room) throw repositoryRefused(`its pack claims ${objects} objects in ${packBytes} bytes; it is damaged`);
}

/** What `git index-pack` refused, in words a user can act on (its stderr may hold host paths: never shown). */
function indexPackReason(stderr: string): string {
  const fsck = /error: object [0-9a-f]+: (\w+): (.{0,120})/.exec(stderr);
  if (fsck) return `git's checks refuse an object (${fsck[1]}: ${fsck[2]})`;
  return "its pack is damaged or not a git pack";
}
