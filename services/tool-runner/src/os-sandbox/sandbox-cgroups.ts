import { randomBytes } from "node:crypto";
import { mkdir, readFile, rmdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";

/** What one sandbox's cgroup holds it to. */
export interface CgroupLimits {
  memoryBytes: number;
  processes: number;
  /** CPUs' worth of time per period (1 = one CPU at most) */
  cpus: number;
}

/** The cgroup of one run. */
export interface RunCgroup {
  /** moves a process (before it forks anything) into the cgroup */
  adopt(pid: number): Promise<void>;
  /** which limits the run ran into: the kernel's own counters, not guesses */
  limitsHit(): Promise<{ memory: boolean; processes: boolean }>;
  /** bytes its processes have sent to a file system with a disk behind it so far (`writtenBytes`) */
  writtenBytes(): Promise<number>;
  /** kills what is left in it and removes it */
  remove(): Promise<void>;
}

/** Per-sandbox limits through cgroups: v2 where the host delegates a subtree, v1 where its hierarchies are writable. */
export interface SandboxCgroups {
  version: "v2" | "v1";
  create(limits: CgroupLimits): Promise<RunCgroup>;
}

const period = 100_000;

/**
 * Finds a cgroup mechanism this process may use for its sandboxes, or undefined. v2: the process's own
 * cgroup in the unified hierarchy must be writable; the process moves itself into a `service` leaf so its
 * cgroup may enable the memory, pids and cpu controllers for its children (the "no internal processes" rule).
 * v1: the memory, pids and cpu hierarchies where the process sits must let it make a child. Each is tried
 * with a real probe cgroup, removed again.
 */
export async function detectSandboxCgroups(proc = "/proc/self"): Promise<SandboxCgroups | undefined> {
  const membership = parseCgroupFile(await readFile(path.join(proc, "cgroup"), "utf8").catch(() => ""));
  const mounts = parseCgroupMounts(await readFile(path.join(proc, "mountinfo"), "utf8").catch(() => ""));
  return (await tryV2(membership, mounts)) ?? (await tryV1(membership, mounts));
}

async function tryV2(membership: Map<string, string>, mounts: CgroupMount[]): Promise<SandboxCgroups | undefined> {
  const own = membership.get("");
  const mount = mounts.find((entry) => entry.version === "v2");
  if (own === undefined || !mount) return undefined;
  const folder = cgroupFolder(mount, own);
  if (folder === undefined) return undefined;
  try {
    const available = (await readFile(path.join(folder, "cgroup.controllers"), "utf8")).split(/\s+/);
    if (!["memory", "pids", "cpu"].every((name) => available.includes(name))) return undefined;
    const enabled = (await readFile(path.join(folder, "cgroup.subtree_control"), "utf8")).split(/\s+/);
    if (!["memory", "pids", "cpu"].every((name) => enabled.includes(name))) {
      const leaf = path.join(folder, "service");
      await mkdir(leaf).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== "EEXIST") throw error;
      });
      await writeFile(path.join(leaf, "cgroup.procs"), String(process.pid));
      await writeFile(path.join(folder, "cgroup.subtree_control"), "+memory +pids +cpu");
    }
    const cgroups: SandboxCgroups = { version: "v2", create: (limits) => createV2(folder, limits) };
    await (await cgroups.create({ memoryBytes: 64 << 20, processes: 4, cpus: 1 })).remove();
    return cgroups;
  } catch {
    return undefined;
  }
}

async function createV2(parent: string, limits: CgroupLimits): Promise<RunCgroup> {
  const folder = path.join(parent, `script-${randomBytes(6).toString("hex")}`);
  await mkdir(folder);
  try {
    await writeFile(path.join(folder, "memory.max"), String(limits.memoryBytes));
    await writeFile(path.join(folder, "memory.swap.max"), "0").catch(() => undefined);
    await writeFile(path.join(folder, "pids.max"), String(limits.processes));
    await writeFile(path.join(folder, "cpu.max"), `${Math.round(limits.cpus * period)} ${period}`);
  } catch (error) {
    await rmdir(folder).catch(() => undefined);
    throw error;
  }
  return {
    adopt: (pid) => writeFile(path.join(folder, "cgroup.procs"), String(pid)),
    limitsHit: async () => ({
      memory: counter(await readFile(path.join(folder, "memory.events"), "utf8").catch(() => ""), "oom_kill") > 0,
      processes: counter(await readFile(path.join(folder, "pids.events"), "utf8").catch(() => ""), "max") > 0,
    }),
    writtenBytes: () => writtenBytes(folder),
    remove: () => removeCgroups([folder], (folder) => writeFile(path.join(folder, "cgroup.kill"), "1")),
  };
}

async function tryV1(membership: Map<string, string>, mounts: CgroupMount[]): Promise<SandboxCgroups | undefined> {
  const folders: Partial<Record<"memory" | "pids" | "cpu", string>> = {};
  for (const controller of ["memory", "pids", "cpu"] as const) {
    const mount = mounts.find((entry) => entry.version === "v1" && entry.controllers.includes(controller));
    const own = [...membership].find(([controllers]) => controllers.split(",").includes(controller))?.[1];
    const folder = mount && own !== undefined ? cgroupFolder(mount, own) : undefined;
    if (folder === undefined) return undefined;
    folders[controller] = folder;
  }
  const cgroups: SandboxCgroups = { version: "v1", create: (limits) => createV1(folders as Record<"memory" | "pids" | "cpu", string>, limits) };
  try {
    await (await cgroups.create({ memoryBytes: 64 << 20, processes: 4, cpus: 1 })).remove();
    return cgroups;
  } catch {
    return undefined;
  }
}

async function createV1(parents: Record<"memory" | "pids" | "cpu", string>, limits: CgroupLimits): Promise<RunCgroup> {
  const name = `ao-script-${randomBytes(6).toString("hex")}`;
  const folders = { memory: path.join(parents.memory, name), pids: path.join(parents.pids, name), cpu: path.join(parents.cpu, name) };
  // a controller mounted twice (cpu,cpuacct together) is one folder
  const unique = [...new Set(Object.values(folders))];
  const made: string[] = [];
  try {
    for (const folder of unique) {
      await mkdir(folder);
      made.push(folder);
    }
    await writeFile(path.join(folders.memory, "memory.limit_in_bytes"), String(limits.memoryBytes));
    // without swap accounting the kernel has no memsw files; memory.limit_in_bytes alone then holds RAM
    await writeFile(path.join(folders.memory, "memory.memsw.limit_in_bytes"), String(limits.memoryBytes)).catch(() => undefined);
    await writeFile(path.join(folders.pids, "pids.max"), String(limits.processes));
    await writeFile(path.join(folders.cpu, "cpu.cfs_period_us"), String(period));
    await writeFile(path.join(folders.cpu, "cpu.cfs_quota_us"), String(Math.round(limits.cpus * period)));
  } catch (error) {
    await Promise.all(made.map((folder) => rmdir(folder).catch(() => undefined)));
    throw error;
  }
  return {
    adopt: async (pid) => {
      for (const folder of unique) await writeFile(path.join(folder, "cgroup.procs"), String(pid));
    },
    limitsHit: async () => ({
      memory: counter(await readFile(path.join(folders.memory, "memory.oom_control"), "utf8").catch(() => ""), "oom_kill") > 0,
      processes: counter(await readFile(path.join(folders.pids, "pids.events"), "utf8").catch(() => ""), "max") > 0,
    }),
    writtenBytes: () => writtenBytes(folders.pids),
    remove: () => removeCgroups(unique, killAllIn),
  };
}

// v1 has no cgroup.kill: signal each process listed (the sandbox's pid namespace dies with its first process anyway)
async function killAllIn(folder: string): Promise<void> {
  const pids = (await readFile(path.join(folder, "cgroup.procs"), "utf8").catch(() => "")).split("\n").filter(Boolean);
  for (const pid of pids) {
    try {
      process.kill(Number(pid), "SIGKILL");
    } catch {
      // gone already
    }
  }
}

/** Kills what is left, then removes the folders; a cgroup stays busy until its last process is reaped. */
async function removeCgroups(folders: string[], kill: (folder: string) => Promise<void>): Promise<void> {
  for (const folder of folders) {
    for (let attempt = 0; ; attempt++) {
      try {
        await rmdir(folder);
        break;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "ENOENT" || attempt >= 50) break;
        await kill(folder).catch(() => undefined);
        await delay(20);
      }
    }
  }
}

/**
 * What the cgroup's processes have written to file systems with a disk behind them: the kernel's I/O accounting of
 * each (`/proc/<pid>/io`: `write_bytes`, counted when a page of a file is dirtied, less `cancelled_write_bytes`,
 * pages truncated before they reached the disk; tmpfs and pipes count nothing), which holds the counts of its threads
 * and of the children it has reaped. So the sum over the processes alive now is what the run wrote so far.
 */
async function writtenBytes(folder: string): Promise<number> {
  const pids = (await readFile(path.join(folder, "cgroup.procs"), "utf8").catch(() => "")).split("\n").filter(Boolean);
  let total = 0;
  for (const pid of pids) {
    const io = await readFile(`/proc/${pid}/io`, "utf8").catch(() => "");
    total += Math.max(0, ioCounter(io, "write_bytes") - ioCounter(io, "cancelled_write_bytes"));
  }
  return total;
}

function ioCounter(text: string, name: string): number {
  return Number(new RegExp(`^${name}: (\\d+)$`, "m").exec(text)?.[1] ?? 0) || 0;
}

function counter(text: string, name: string): number {
  const line = text.split("\n").find((entry) => entry.startsWith(`${name} `));
  return Number(line?.split(" ")[1] ?? 0) || 0;
}

interface CgroupMount {
  version: "v1" | "v2";
  controllers: string[];
  /** the cgroup path the mount shows at its mount point */
  root: string;
  mountPoint: string;
}

/** `/proc/self/cgroup`: controller list ("" for v2) → the process's cgroup path. */
export function parseCgroupFile(text: string): Map<string, string> {
  const membership = new Map<string, string>();
  for (const line of text.split("\n")) {
    const [, controllers, cgroupPath] = /^\d+:([^:]*):(.*)$/.exec(line) ?? [];
    if (controllers !== undefined && cgroupPath !== undefined) membership.set(controllers, cgroupPath);
  }
  return membership;
}

/** The cgroup mounts of `/proc/self/mountinfo`. */
export function parseCgroupMounts(text: string): CgroupMount[] {
  const mounts: CgroupMount[] = [];
  for (const line of text.split("\n")) {
    const [before, after] = line.split(" - ");
    if (!before || !after) continue;
    const fields = before.split(" ");
    const [type, , superOptions] = after.split(" ");
    const root = fields[3];
    const mountPoint = fields[4];
    if (root === undefined || mountPoint === undefined) continue;
    if (type === "cgroup2") mounts.push({ version: "v2", controllers: [], root, mountPoint });
    else if (type === "cgroup") mounts.push({ version: "v1", controllers: (superOptions ?? "").split(","), root, mountPoint });
  }
  return mounts;
}

function cgroupFolder(mount: CgroupMount, cgroupPath: string): string | undefined {
  const relative = path.posix.relative(mount.root, cgroupPath);
  if (relative.startsWith("..")) return undefined;
  return path.join(mount.mountPoint, relative);
}
