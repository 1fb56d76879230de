import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { mkdir, rm, stat } from "node:fs/promises";
import path from "node:path";

/** The shape of a generated repository: small source files and incompressible binary files, one commit. */
export interface LargeBundleShape {
  sourceFiles: number;
  binaryFiles: number;
  binaryBytes: number;
}

/** A bundle on disk and what it holds. */
export interface LargeBundle {
  file: string;
  bytes: number;
  files: number;
  makeMs: number;
}

const filesPerFolder = 100;
const hermetic = (home: string) => ({ PATH: process.env["PATH"] ?? "", HOME: home, GIT_CONFIG_NOSYSTEM: "1" });

function git(cwd: string, args: readonly string[]): ReturnType<typeof spawn> {
  return spawn("git", ["-c", "gc.auto=0", "-c", "maintenance.auto=false", ...args], { cwd, env: hermetic(cwd), stdio: ["pipe", "ignore", "inherit"] });
}

async function finished(child: ReturnType<typeof spawn>, what: string): Promise<void> {
  const [code] = (await once(child, "close")) as [number | null];
  if (code !== 0) throw new Error(`${what} exited ${code}`);
}

/** Writes to a child's stdin, waiting for it to drain, so the stream is never held whole. */
async function write(child: ReturnType<typeof spawn>, bytes: string | Buffer): Promise<void> {
  if (!child.stdin?.write(bytes)) await once(child.stdin ?? child, "drain");
}

/**
 * A git bundle of one commit on `main` with `shape`'s files, made fast: a `git fast-import` stream generated here
 * (every binary file its own random bytes, so nothing deduplicates or compresses: stored without compression, which
 * would only cost time), then `git bundle create` with no delta search (random bytes have no deltas to find). The repository it was made in is removed; only the
 * bundle stays, in `folder`.
 */
export async function makeLargeBundle(folder: string, shape: LargeBundleShape): Promise<LargeBundle> {
  const started = performance.now();
  const gitDir = path.join(folder, "made.git");
  await mkdir(folder, { recursive: true });
  await finished(git(folder, ["init", "--bare", "-q", gitDir]), "git init");
  const importer = git(gitDir, ["-c", "core.compression=0", "-c", "pack.compression=0", "fast-import", "--quiet", "--depth=0"]);
  const closed = finished(importer, "git fast-import");
  const paths: string[] = [];
  let mark = 0;
  const blob = async (content: Buffer, file: string) => {
    mark += 1;
    paths.push(`M 100644 :${mark} ${file}\n`);
    await write(importer, `blob\nmark :${mark}\ndata ${content.byteLength}\n`);
    await write(importer, content);
    await write(importer, "\n");
  };
  for (let at = 0; at < shape.binaryFiles; at += 1) {
    await blob(randomBytes(shape.binaryBytes), `assets/a${Math.floor(at / filesPerFolder)}/b${at % filesPerFolder}.bin`);
  }
  for (let at = 0; at < shape.sourceFiles; at += 1) {
    await blob(Buffer.from(`export const value${at} = ${at};\n// a small source file of the bench's repository\n`), `src/m${Math.floor(at / filesPerFolder)}/f${at % filesPerFolder}.ts`);
  }
  const message = "the bench's files\n";
  await write(importer, `commit refs/heads/main\nauthor Bench <bench@example.com> 1767225600 +0000\ncommitter Bench <bench@example.com> 1767225600 +0000\ndata ${message.length}\n${message}`);
  for (const line of paths) await write(importer, line);
  await write(importer, "\ndone\n");
  importer.stdin?.end();
  await closed;
  const file = path.join(folder, "large.bundle");
  await finished(git(gitDir, ["-c", "pack.window=0", "bundle", "create", "-q", file, "--all"]), "git bundle create");
  await rm(gitDir, { recursive: true, force: true });
  return { file, bytes: (await stat(file)).size, files: shape.sourceFiles + shape.binaryFiles, makeMs: performance.now() - started };
}
