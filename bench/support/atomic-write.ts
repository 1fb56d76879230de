import { randomBytes } from "node:crypto";
import { lstat, open, rename, unlink, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { assertDescriptorPath, openDirectory, accessDenied } from "@agent-orchestrator/tool-runner";

/**
 * How the volume-backed tool-runner wrote a file before projects (docs/projects.md; the sandbox algorithm's old step 7), kept for
 * the bench's baseline of the store's write (volume-save.ts): writes
 * `data` to a temp file created with `wx` (O_EXCL, so it never follows a planted link) in the same
 * directory, fsyncs it, checks again that the directory is the one checked, and renames the temp file
 * over `name`. Readers see the old file or the new one, never half of it. The temp file is removed on any
 * error; the rename replaces a directory entry, so an existing symlink is replaced, not followed (docs/security.md case 25).
 */
export async function writeFileAtomically(
  directory: string,
  name: string,
  data: Uint8Array,
): Promise<void> {
  const target = path.join(directory, name);
  const directoryHandle = await openDirectory(directory);
  // temp names do not derive from `name`: a 255-byte name plus a suffix would be too long
  const tempPath = path.join(directory, `.ao-${randomBytes(8).toString("hex")}.tmp`);
  let tempCreated = false;
  try {
    await assertDescriptorPath(directoryHandle, directory);
    const checked = await directoryHandle.stat();
    const file = await open(tempPath, "wx", 0o644);
    tempCreated = true;
    await writeAll(file, data);
    await assertSameDirectory(directoryHandle, directory, checked.dev, checked.ino);
    await rename(tempPath, target);
    tempCreated = false;
    // make the rename itself durable; some filesystems refuse fsync on a directory, which is harmless
    await directoryHandle.sync().catch(() => undefined);
  } finally {
    if (tempCreated) await unlink(tempPath).catch(() => undefined);
    await directoryHandle.close();
  }
}

async function writeAll(file: FileHandle, data: Uint8Array): Promise<void> {
  try {
    await file.writeFile(data);
    await file.sync();
  } finally {
    await file.close();
  }
}

async function assertSameDirectory(handle: FileHandle, directory: string, dev: number, ino: number): Promise<void> {
  await assertDescriptorPath(handle, directory);
  const now = await lstat(directory);
  if (!now.isDirectory() || now.dev !== dev || now.ino !== ino) {
    throw accessDenied("PATH_CHANGED", { reason: "directory changed before rename", directory });
  }
}
