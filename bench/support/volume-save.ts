import { randomUUID } from "node:crypto";
import { link, lstat, mkdir, readFile, unlink, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import path from "node:path";
import { writeFileAtomically } from "./atomic-write.js";

/** A manifest entry as the volume-backed tool-runner listed a saved file. */
interface ManifestFile {
  path: string;
  size: number;
  written_at: string;
}

/**
 * `save_output` as the volume-backed tool-runner did it before projects (docs/projects.md), for the baseline of the store's
 * write: the target checked on disk; then, under the session's lock file (a draft naming the holder, linked to the
 * lock's name; read back and unlinked on release), manifest.json read, the file written atomically (temp
 * file, fsync, rename, fsync of the folder) and the manifest written atomically again. No contention:
 * one writer, as in the store's figure.
 */
export async function saveOnVolume(sessionFolder: string, relative: string, content: Uint8Array): Promise<void> {
  const target = path.join(sessionFolder, relative);
  const parent = path.dirname(target);
  await mkdir(parent, { recursive: true });
  // the old sandbox refused a target that was a link or a folder
  await lstat(target).catch(() => undefined);
  await withLock(path.join(sessionFolder, "manifest.json.lock"), async () => {
    const manifestPath = path.join(sessionFolder, "manifest.json");
    const manifest = JSON.parse(await readFile(manifestPath, "utf8").catch(() => '{"files":[]}')) as { files: ManifestFile[] };
    // the file was written inside the lock turn, once the manifest's quota check admitted it
    await writeFileAtomically(parent, path.basename(target), content);
    const entry = { path: relative, size: content.byteLength, written_at: new Date().toISOString() };
    const at = manifest.files.findIndex((file) => file.path === relative);
    if (at === -1) manifest.files.push(entry);
    else manifest.files[at] = entry;
    await writeFileAtomically(sessionFolder, "manifest.json", Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`));
  });
}

async function withLock(lockPath: string, work: () => Promise<void>): Promise<void> {
  const body = { token: randomUUID(), pid: process.pid, host: hostname() };
  const draft = `${lockPath}.${body.token}.draft`;
  await writeFile(draft, JSON.stringify(body), { flag: "wx" });
  try {
    await link(draft, lockPath);
  } finally {
    await unlink(draft);
  }
  try {
    await work();
  } finally {
    const holder = JSON.parse(await readFile(lockPath, "utf8")) as { token: string };
    if (holder.token === body.token) await unlink(lockPath);
  }
}
