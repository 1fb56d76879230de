import { realpath, unlink } from "node:fs/promises";
import path from "node:path";
import { assertDescriptorPath, descriptorDirectoryPath, openDirectory } from "./descriptor-path.js";
import { isInside } from "./containment.js";
import { accessDenied, errnoCode } from "./sandbox-error.js";

const sessionPrefix = "{session-folder}/";

/**
 * Removes a file of the session folder named by its virtual path (`{session-folder}/a/b.md`), one a script
 * wrote. Scripts can plant links in the session folder, so the parent folder must really be inside it, is
 * opened without following a link and checked through its descriptor, and the name is unlinked through that
 * descriptor: no path swapped meanwhile can send the removal elsewhere. A file already gone is no error.
 */
export async function removeSessionFile(sessionFolder: string, virtualPath: string): Promise<void> {
  const relative = virtualPath.startsWith(sessionPrefix) ? virtualPath.slice(sessionPrefix.length) : undefined;
  const segments = relative?.split("/") ?? [];
  const name = segments.pop();
  if (!name || segments.some((segment) => segment === ".." || segment === "")) {
    throw accessDenied("ACCESS_DENIED", { reason: "not a session file", virtualPath });
  }
  const parent = path.join(sessionFolder, ...segments);
  try {
    const real = await realpath(parent);
    if (real !== parent || !isInside(sessionFolder, real)) throw accessDenied("SYMLINK_ESCAPE", { reason: "link in a removed file's path", virtualPath, real });
    const handle = await openDirectory(parent);
    try {
      await assertDescriptorPath(handle, parent);
      await unlink(path.join(descriptorDirectoryPath(handle, parent), name));
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (errnoCode(error) !== "ENOENT") throw error;
  }
}
