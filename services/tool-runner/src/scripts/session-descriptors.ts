import { constants } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { assertDescriptorPath, openDirectory } from "../sandbox/descriptor-path.js";
import { accessDenied, errnoCode } from "../sandbox/sandbox-error.js";
import { callRecordFolderName } from "../sandbox/protected-names.js";
import { prepareParentDirectories } from "../sandbox/write-path.js";
import type { DescriptorBind } from "./bwrap-arguments.js";
import { insideProject, insideSession, type SandboxView } from "./sandbox-view.js";

/** Files of the session folder a script may not change: the system's manifest (its owner decides who sees the session). */
const systemFiles = ["manifest.json"];

/** Open descriptors for one run, and the binds that use them (child fd 3 onward). */
export interface SessionDescriptors {
  fds: number[];
  binds: DescriptorBind[];
  close(): Promise<void>;
}

/**
 * Opens what the sandbox binds from the session folder: the folder itself (read-write), each scratch place's
 * folder in it (created one level at a time, never through a link), and the system files and the call
 * records' folder (read-only over themselves). bwrap binds the open descriptors, not paths: the session folder is writable by earlier scripts,
 * which can plant symlinks, and a path checked here could be swapped before bwrap mounts it.
 */
export async function openSessionDescriptors(view: SandboxView): Promise<SessionDescriptors> {
  const handles: FileHandle[] = [];
  const binds: DescriptorBind[] = [];
  const add = (handle: FileHandle, inside: string, writable: boolean) => {
    handles.push(handle);
    binds.push({ fd: 3 + binds.length, inside, writable });
  };
  const close = async () => {
    await Promise.all(handles.map((handle) => handle.close().catch(() => undefined)));
  };
  try {
    const session = await openDirectory(view.sessionFolder);
    add(session, insideSession, true);
    await assertDescriptorPath(session, view.sessionFolder);
    for (const name of systemFiles) {
      const file = await openSystemFile(path.join(view.sessionFolder, name));
      if (file) add(file, path.posix.join(insideSession, name), false);
    }
    // the call records (created now if missing): a script may not forge the answer to a retried call
    const records = await prepareParentDirectories(view.sessionFolder, [callRecordFolderName], { reason: "call records" });
    const recordsHandle = await openDirectory(records);
    add(recordsHandle, path.posix.join(insideSession, callRecordFolderName), false);
    await assertDescriptorPath(recordsHandle, records);
    for (const place of view.scratch) {
      const detail = { reason: "scratch folder", place: place.sessionRelative };
      const folder = await prepareParentDirectories(view.sessionFolder, place.sessionRelative.split("/"), detail);
      const handle = await openDirectory(folder);
      add(handle, path.posix.join(insideProject, place.relative), true);
      await assertDescriptorPath(handle, folder);
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { fds: handles.map((handle) => handle.fd), binds, close };
}

async function openSystemFile(file: string): Promise<FileHandle | undefined> {
  try {
    const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    if (!(await handle.stat()).isFile()) {
      await handle.close();
      throw accessDenied("ACCESS_DENIED", { reason: "system file is not a regular file", file });
    }
    return handle;
  } catch (error) {
    if (errnoCode(error) === "ENOENT") return undefined;
    if (errnoCode(error) === "ELOOP") throw accessDenied("SYMLINK_ESCAPE", { reason: "system file is a link", file });
    throw error;
  }
}
