import { chmod, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { sandboxPrograms, type ReadOnlyBind } from "./bwrap-arguments.js";
import { firstFolderFd } from "./sandbox-process.js";

/** What bwrap's stderr begins with when the binder could not bind the install (script-runner.ts reads it). */
export const installBinderPrefix = "install binder: ";

/**
 * A root tool-runner's step before bwrap, for an install its sandbox users cannot reach (BMAD_ROOT under a
 * 0700 home): bwrap, started as the slot's unprivileged user, resolves every bound folder by its path, even one
 * given as a descriptor (`--ro-bind-fd` binds the `realpath` of `/proc/self/fd/N`), and that user may not walk
 * the path. So this program, still root, enters a mount namespace of the run's own (private: nothing reaches the
 * host's), binds each folder onto an empty folder the tool-runner made under the temporary folder, checks that
 * what got bound is the very folder the tool-runner opened and checked (fds 5, 6, …: same device and inode, so a
 * path swapped since fails the run; the descriptor itself cannot be bound, as its mount belongs to the namespace
 * left behind), closes the descriptors, drops to the slot's uid and gid with no supplementary groups (which
 * takes every capability), and runs bwrap with the rest of its arguments. bwrap then binds those folders
 * read-only as before. Plain python3 (standard library, ctypes), since it must run before bwrap, and node cannot
 * make a mount namespace.
 */
const binderSource = String.raw`
import ctypes, json, os, sys

CLONE_NEWNS = 0x00020000
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18

config = json.loads(sys.argv[1])
libc = ctypes.CDLL(None, use_errno=True)

def check(result, what):
    if result != 0:
        sys.stderr.write("${installBinderPrefix}%s: %s\n" % (what, os.strerror(ctypes.get_errno())))
        sys.exit(125)

check(libc.unshare(CLONE_NEWNS), "cannot make a mount namespace")
check(libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "cannot make the mounts private")
for index, bind in enumerate(config["binds"]):
    descriptor = config["first_fd"] + index
    check(libc.mount(bind["host"].encode(), bind["mountpoint"].encode(), None, MS_BIND | MS_REC, None), "cannot bind a BMAD folder")
    opened, bound = os.fstat(descriptor), os.stat(bind["mountpoint"])
    if (opened.st_dev, opened.st_ino) != (bound.st_dev, bound.st_ino):
        sys.stderr.write("${installBinderPrefix}a BMAD folder changed after it was checked\n")
        sys.exit(125)
    os.close(descriptor)
os.setgroups([])
os.setresgid(config["gid"], config["gid"], config["gid"])
os.setresuid(config["uid"], config["uid"], config["uid"])
os.execv(sys.argv[2], sys.argv[2:])
`;

/** How one run's read-only folders reach bwrap, and as whom bwrap starts. */
export interface ReadOnlyEntry {
  /** for `bwrapArguments` */
  readOnly: ReadOnlyBind[];
  /** run before bwrap (which it ends by running); empty when bwrap starts directly */
  entry: string[];
  /** the host user the process starts as */
  spawnAs: { uid: number; gid: number } | undefined;
  /** removes the empty folders the binds went onto */
  remove(): Promise<void>;
}

/**
 * The read-only folders (each opened, and handed over as fds 5, 6, … in this order) for one run as `user`: bwrap
 * binds the descriptors itself, or, with `bindFirst` and a user to drop to, the binder above binds them first.
 */
export async function readOnlyEntry(
  folders: ReadonlyArray<{ host: string; inside: string }>,
  user: { uid: number; gid: number } | undefined,
  bindFirst: boolean,
): Promise<ReadOnlyEntry> {
  if (!bindFirst || user === undefined || folders.length === 0) {
    return { readOnly: folders.map((folder, index) => ({ fd: firstFolderFd + index, inside: folder.inside })), entry: [], spawnAs: user, remove: () => Promise.resolve() };
  }
  const base = await mkdtemp(path.join(tmpdir(), "ao-script-install-"));
  const remove = () => rm(base, { recursive: true, force: true });
  try {
    // the sandbox's user walks to these (bwrap's realpath): searchable, and nobody else may change them
    await chmod(base, 0o755);
    const readOnly = folders.map((folder, index) => ({ host: path.join(base, String(index)), inside: folder.inside }));
    for (const bind of readOnly) await mkdir(bind.host, { mode: 0o755 });
    const binds = folders.map((folder, index) => ({ host: folder.host, mountpoint: readOnly[index]?.host }));
    const config = JSON.stringify({ binds, first_fd: firstFolderFd, uid: user.uid, gid: user.gid });
    return {
      readOnly,
      entry: [sandboxPrograms.python, "-I", "-S", "-B", "-c", binderSource, config],
      spawnAs: undefined,
      remove,
    };
  } catch (error) {
    await remove();
    throw error;
  }
}
