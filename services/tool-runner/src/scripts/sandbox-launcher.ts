/** Where the launcher reads its input and writes its report: the child's fd 3, a socket to the tool-runner. */
export const launcherChannelFd = 3;

/** One writable place of the sandbox: a size-limited tmpfs at `inside`, holding the run's files under `prefix`. */
export interface LauncherPlace {
  inside: string;
  /** the channel folder the place stands for (`project`, `session`, `session/.bmad-scratch/_bmad/render`) */
  prefix: string;
}

/** What the launcher is told, as its one argument (JSON). */
export interface LauncherConfig {
  places: LauncherPlace[];
  /** the script's command line (prlimit, python3, the script, its arguments) */
  command: string[];
  cwd: string;
  /** entries the launcher walks after the run; past it the run is over its limit */
  maxEntries: number;
  /** channel paths longer than this (UTF-8 bytes) are never reported as files */
  maxPathBytes: number;
}

/**
 * The sandbox's first process (python3 -I, the standard library only, imported before the script starts). It
 * runs as the sandbox's user like the script, so nothing it reports is trusted: the tool-runner checks every
 * frame. What it buys is that the script never touches a host folder. In order:
 *
 * 1. reads the run's files from fd 3 (frames: a JSON line `{"path","size"}`, then the bytes; `{"end":true}`)
 *    into the places, size-limited tmpfs mounts, and notes each file's inode, size and mtime;
 * 2. makes itself non-dumpable and a child subreaper, then runs the script with fd 3 closed and stdin empty;
 * 3. when the script ends, kills every process left in the sandbox (kill(-1), the pid namespace is the
 *    sandbox's) and reaps them all, so nothing writes while it looks;
 * 4. walks the places (no depth limit, `maxEntries` at most; never into another mount, such as a read-only tree
 *    bound into the project, or a name another place stands for) and writes back on fd 3: `{"file","size"}` + bytes
 *    for each regular file that is new or changed, `{"delete"}` for each file gone, `{"skipped","reason"}` for
 *    anything else (links, FIFOs, devices, sockets, names that are not UTF-8 or too long), and last
 *    `{"end":true,"exit","signal","disk_full","too_many"}`.
 *
 * A script that kills the launcher, or fills a place, or leaves too many entries, gets no end frame or a
 * failing one, and the tool-runner keeps nothing of the run.
 */
export const launcherSource = String.raw`
import io, json, os, signal, stat, subprocess, sys

def main():
    config = json.loads(sys.argv[1])
    channel = ${launcherChannelFd}
    os.set_inheritable(channel, False)
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(4, 0, 0, 0, 0)   # PR_SET_DUMPABLE 0: the script cannot open this process's descriptors
        libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER: orphans of the script become ours to reap
    except Exception:
        pass
    places = sorted(config["places"], key=lambda place: len(place["prefix"]), reverse=True)
    reader = io.open(channel, "rb", closefd=False)

    def send(header):
        data = json.dumps(header).encode("utf-8") + b"\n"
        view = memoryview(data)
        while view:
            view = view[os.write(channel, view):]

    def place_of(relative):
        for place in places:
            prefix = place["prefix"]
            if relative.startswith(prefix + "/"):
                return place, relative[len(prefix) + 1:]
        return None, None

    recorded = {}
    input_full = False
    while True:
        line = reader.readline(65536)
        if not line:
            return
        header = json.loads(line)
        if header.get("end"):
            break
        relative, size = header["path"], header["size"]
        place, inner = place_of(relative)
        remaining = size
        handle = None
        if place is not None and inner and not input_full:
            target = os.path.join(place["inside"], inner)
            try:
                os.makedirs(os.path.dirname(target), exist_ok=True)
                handle = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
            except OSError:
                handle = None
        while remaining > 0:
            chunk = reader.read(min(remaining, 65536))
            if not chunk:
                return
            remaining -= len(chunk)
            if handle is not None:
                try:
                    os.write(handle, chunk)
                except OSError:
                    input_full = True
                    os.close(handle)
                    handle = None
        if handle is not None:
            info = os.fstat(handle)
            os.close(handle)
            recorded[relative] = (info.st_ino, info.st_size, info.st_mtime_ns)

    try:
        child = subprocess.Popen(config["command"], cwd=config["cwd"], stdin=subprocess.DEVNULL, close_fds=True)
        returncode = child.wait()
    except OSError as error:
        send({"end": True, "start_error": error.strerror or str(error)})
        return
    try:
        os.kill(-1, signal.SIGKILL)
    except OSError:
        pass
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            break
        except InterruptedError:
            continue

    disk_full = input_full
    for place in places:
        try:
            info = os.statvfs(place["inside"])
            if info.f_bavail == 0:
                disk_full = True
        except OSError:
            pass

    seen = set()
    entries = 0
    too_many = False
    for place in places:
        nested = [other["prefix"] for other in places if other["prefix"].startswith(place["prefix"] + "/")]
        try:
            device = os.stat(place["inside"]).st_dev
        except OSError:
            continue
        stack = [""]
        while stack and not too_many:
            folder = stack.pop()
            try:
                listing = list(os.scandir(os.path.join(place["inside"], folder) if folder else place["inside"]))
            except OSError:
                continue
            for entry in listing:
                entries += 1
                if entries > config["maxEntries"]:
                    too_many = True
                    break
                inner = entry.name if folder == "" else folder + "/" + entry.name
                relative = place["prefix"] + "/" + inner
                if any(relative == prefix or relative.startswith(prefix + "/") for prefix in nested):
                    continue
                try:
                    encoded = relative.encode("utf-8")
                except UnicodeEncodeError:
                    send({"skipped": relative.encode("utf-8", "backslashreplace").decode("ascii", "backslashreplace"), "reason": "name is not UTF-8"})
                    continue
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if info.st_dev != device:
                    continue
                if stat.S_ISDIR(info.st_mode):
                    stack.append(inner)
                    continue
                if not stat.S_ISREG(info.st_mode):
                    send({"skipped": relative, "reason": "not a regular file"})
                    continue
                if len(encoded) > config["maxPathBytes"]:
                    send({"skipped": relative[:200], "reason": "path too long"})
                    continue
                seen.add(relative)
                if recorded.get(relative) == (info.st_ino, info.st_size, info.st_mtime_ns):
                    continue
                try:
                    handle = os.open(os.path.join(place["inside"], inner), os.O_RDONLY | os.O_NOFOLLOW)
                except OSError:
                    continue
                try:
                    size = os.fstat(handle).st_size
                    send({"file": relative, "size": size})
                    remaining = size
                    while remaining > 0:
                        chunk = os.read(handle, min(remaining, 65536))
                        if not chunk:
                            chunk = bytes(min(remaining, 65536))
                        view = memoryview(chunk)
                        while view:
                            view = view[os.write(channel, view):]
                        remaining -= len(chunk)
                finally:
                    os.close(handle)
    if not too_many:
        for relative in recorded:
            if relative not in seen:
                send({"delete": relative})
    send({
        "end": True,
        "exit": returncode if returncode >= 0 else None,
        "signal": -returncode if returncode < 0 else None,
        "disk_full": disk_full,
        "too_many": too_many,
    })

main()
`;
