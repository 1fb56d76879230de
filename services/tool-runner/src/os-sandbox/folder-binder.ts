import { chmod, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { firstFolderFd } from "./sandbox-spawn.js";
import { sandboxPrograms } from "./sandbox-programs.js";

/** What bwrap's stderr begins with when the binder could not bind a folder (the runners read it). */
export const binderPrefix = "folder binder: ";

/**
 * A root tool-runner's step before bwrap, for folders its sandbox users cannot use as they are: bwrap, started as
 * the slot's unprivileged user, resolves every bound folder by its path, even one given as a descriptor
 * (`--ro-bind-fd` binds the `realpath` of `/proc/self/fd/N`), and that user may not walk the path (BMAD_ROOT under
 * a 0700 home) nor write files the tool-runner owns (a working tree). So this program, still root, enters a mount
 * namespace of the run's own (private: nothing reaches the host's) and binds each folder onto an empty folder the
 * tool-runner made under the temporary folder: a read-only one as it is; a writable one as an idmapped mount
 * (Linux 5.12+, on a file system that supports it: ext4, xfs, btrfs, tmpfs 6.3+) on which the files the
 * tool-runner owns (uid and gid 0) are the slot user's, and the files that user creates are the tool-runner's on
 * the disk. It checks that what got bound is the very folder the tool-runner opened and checked (fds 5, 6, …: same
 * device and inode, so a path swapped since fails the run; the descriptor itself cannot be bound, as its mount
 * belongs to the namespace left behind), closes the descriptors, drops to the slot's uid and gid with no
 * supplementary groups (which takes every capability), and runs bwrap with the rest of its arguments. bwrap then
 * binds those folders as before. Plain python3 (standard library, ctypes), since it must run before bwrap, and node
 * cannot make a mount namespace.
 */
const binderSource = String.raw`
import ctypes, json, os, signal, struct, sys

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
# open_tree, move_mount and mount_setattr have one number on x86-64 and arm64 (the generic table)
SYS_OPEN_TREE, SYS_MOVE_MOUNT, SYS_MOUNT_SETATTR = 428, 429, 442
OPEN_TREE_CLONE, OPEN_TREE_CLOEXEC, AT_RECURSIVE, AT_EMPTY_PATH, AT_FDCWD = 1, 0o2000000, 0x8000, 0x1000, -100
MOUNT_ATTR_IDMAP, MOVE_MOUNT_F_EMPTY_PATH = 0x00100000, 4

config = json.loads(sys.argv[1])
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long

def fail(what):
    sys.stderr.write("${binderPrefix}%s\n" % what)
    sys.exit(125)

def check(result, what):
    if result < 0:
        fail("%s: %s" % (what, os.strerror(ctypes.get_errno())))
    return result

def owner_namespace(uid, gid):
    """A user namespace whose uid 0 and gid 0 are the slot's user: an idmapped mount shows root's files as theirs."""
    done_read, done_write = os.pipe()
    go_read, go_write = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(done_read)
        os.close(go_write)
        os.write(done_write, b"1" if libc.unshare(CLONE_NEWUSER) == 0 else b"0")
        os.read(go_read, 1)
        os._exit(0)
    os.close(done_write)
    os.close(go_read)
    try:
        if os.read(done_read, 1) != b"1":
            fail("cannot make a user namespace for the working tree")
        with open("/proc/%d/uid_map" % child, "w") as f:
            f.write("0 %d 1\n" % uid)
        with open("/proc/%d/setgroups" % child, "w") as f:
            f.write("deny")
        with open("/proc/%d/gid_map" % child, "w") as f:
            f.write("0 %d 1\n" % gid)
        return os.open("/proc/%d/ns/user" % child, os.O_RDONLY)
    finally:
        os.close(go_write)
        os.close(done_read)
        os.waitpid(child, 0)

check(libc.unshare(CLONE_NEWNS), "cannot make a mount namespace")
check(libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "cannot make the mounts private")
userns = None
for index, bind in enumerate(config["binds"]):
    descriptor = config["first_fd"] + index
    if bind["writable"]:
        if userns is None:
            userns = owner_namespace(config["uid"], config["gid"])
        tree = check(libc.syscall(SYS_OPEN_TREE, AT_FDCWD, bind["host"].encode(), OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE), "cannot open the working tree")
        attributes = ctypes.create_string_buffer(struct.pack("QQQQ", MOUNT_ATTR_IDMAP, 0, 0, userns))
        check(libc.syscall(SYS_MOUNT_SETATTR, tree, b"", AT_EMPTY_PATH | AT_RECURSIVE, attributes, 32), "cannot idmap the working tree")
        check(libc.syscall(SYS_MOVE_MOUNT, tree, b"", AT_FDCWD, bind["mountpoint"].encode(), MOVE_MOUNT_F_EMPTY_PATH), "cannot bind the working tree")
        os.close(tree)
    else:
        check(libc.mount(bind["host"].encode(), bind["mountpoint"].encode(), None, MS_BIND | MS_REC, None), "cannot bind a folder")
    opened, bound = os.fstat(descriptor), os.stat(bind["mountpoint"])
    if (opened.st_dev, opened.st_ino) != (bound.st_dev, bound.st_ino):
        fail("a folder changed after it was checked")
    os.close(descriptor)
if userns is not None:
    os.close(userns)
# python ignores these two at start, and an ignored signal stays ignored across exec: give the sandbox the defaults
signal.signal(signal.SIGPIPE, signal.SIG_DFL)
signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
os.setgroups([])
os.setresgid(config["gid"], config["gid"], config["gid"])
os.setresuid(config["uid"], config["uid"], config["uid"])
os.execv(sys.argv[2], sys.argv[2:])
`;

/**
 * A folder bwrap binds at `inside`, read-only unless `writable`: a descriptor the tool-runner opened (a child fd
 * number), so no path can be swapped between the check and the mount; or the folder a root tool-runner bound it
 * onto first (the binder above).
 */
export type FolderBind = ({ fd: number } | { host: string }) & { inside: string; writable?: boolean | undefined };

/** bwrap's arguments for the binds, in order. */
export function bindArguments(binds: readonly FolderBind[]): string[] {
  return binds.flatMap((bind) =>
    "fd" in bind ? [bind.writable ? "--bind-fd" : "--ro-bind-fd", String(bind.fd), bind.inside] : [bind.writable ? "--bind" : "--ro-bind", bind.host, bind.inside],
  );
}

/** How one run's folders reach bwrap, and as whom bwrap starts. */
export interface SandboxEntry {
  /** for bwrap (`bindArguments`) */
  binds: FolderBind[];
  /** run before bwrap (which it ends by running); empty when bwrap starts directly */
  entry: string[];
  /** the host user the process starts as */
  spawnAs: { uid: number; gid: number } | undefined;
  /** removes the empty folders the binds went onto */
  remove(): Promise<void>;
}

/**
 * The folders (each opened, and handed over as fds 5, 6, … in this order) for one run as `user`: bwrap binds the
 * descriptors itself, or, with `bindFirst` and a user to drop to, the binder above binds them first.
 */
export async function sandboxEntry(
  folders: ReadonlyArray<{ host: string; inside: string; writable?: boolean | undefined }>,
  user: { uid: number; gid: number } | undefined,
  bindFirst: boolean,
): Promise<SandboxEntry> {
  if (!bindFirst || user === undefined || folders.length === 0) {
    return {
      binds: folders.map((folder, index) => ({ fd: firstFolderFd + index, inside: folder.inside, writable: folder.writable })),
      entry: [],
      spawnAs: user,
      remove: () => Promise.resolve(),
    };
  }
  const base = await mkdtemp(path.join(tmpdir(), "ao-sandbox-binds-"));
  const remove = () => rm(base, { recursive: true, force: true });
  try {
    // the sandbox's user walks to these (bwrap's realpath): searchable, and nobody else may change them
    await chmod(base, 0o755);
    const binds = folders.map((folder, index) => ({ host: path.join(base, String(index)), inside: folder.inside, writable: folder.writable }));
    for (const bind of binds) await mkdir(bind.host, { mode: 0o755 });
    const config = JSON.stringify({
      binds: folders.map((folder, index) => ({ host: folder.host, mountpoint: binds[index]?.host, writable: folder.writable === true })),
      first_fd: firstFolderFd,
      uid: user.uid,
      gid: user.gid,
    });
    return { binds, entry: [sandboxPrograms.python, "-I", "-S", "-B", "-c", binderSource, config], spawnAs: undefined, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}
