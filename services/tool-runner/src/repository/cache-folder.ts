import { randomUUID } from "node:crypto";
import { mkdir, mkdtemp, readdir, readFile, readlink, rename, rm, stat, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { parseJson, type Logger } from "@agent-orchestrator/shared/runtime";

/** Who made a cache folder: enough to tell, on the same machine, whether that process still runs. */
const Owner = z.object({
  pid: z.number().int().positive(),
  /** the kernel's boot and the pid namespace the pid counts in: a pid means nothing outside them */
  boot: z.string(),
  namespace: z.string(),
  /** the process's start time in clock ticks since boot (/proc/<pid>/stat): a pid used again starts later */
  started: z.string(),
});
type Owner = z.infer<typeof Owner>;

/** How often a cache folder's owner marks it alive, and when a mark is old enough that its owner is taken for dead. */
export interface CacheFolderTiming {
  heartbeatMs: number;
  staleMs: number;
  /** a folder without an owner's mark (made before marks existed) is taken for dead this long after its last change */
  unmarkedStaleMs: number;
}

const defaultTiming: CacheFolderTiming = { heartbeatMs: 30_000, staleMs: 5 * 60_000, unmarkedStaleMs: 24 * 60 * 60_000 };
const prefix = "repositories-";
// what mkdtemp makes of the prefix: nothing else in a shared root (the system's temporary folder) is taken for ours
const folderName = /^repositories-[A-Za-z0-9]{6}$/;
const removingPrefix = "removing-repositories-";
const ownerFile = "owner.json";

/**
 * This tool-runner's own folder in the cache root (docs/repositories.md "A tool-runner's cache"), and the removal of
 * those that dead predecessors left: a tool-runner killed with SIGKILL never removes its folder, and nothing else
 * would. Several replicas may share one root (one machine, or containers sharing a volume), so a folder is removed
 * only when its owner is known to be dead: on the same machine and pid namespace, when its pid no longer runs the
 * process that made it; elsewhere, when its owner stopped marking it alive (`staleMs`). A folder is renamed before it
 * is removed, so two replicas never remove the same one at once, and one being removed is never taken for live.
 */
export class CacheFolder {
  private readonly timer: NodeJS.Timeout;
  private sweeping: Promise<void> = Promise.resolve();

  private constructor(
    readonly root: string,
    readonly folder: string,
    private readonly self: Owner | undefined,
    private readonly logger: Logger,
    private readonly timing: CacheFolderTiming,
  ) {
    this.timer = setInterval(() => void this.beat(), timing.heartbeatMs);
    this.timer.unref();
  }

  /** Makes this process's folder in `root`, marks it as this process's, and starts removing what dead predecessors left. */
  static async claim(root: string, logger: Logger, timing: Partial<CacheFolderTiming> = {}): Promise<CacheFolder> {
    await mkdir(root, { recursive: true });
    const folder = await mkdtemp(path.join(root, prefix));
    const self = await ownSelf();
    await writeFile(path.join(folder, ownerFile), JSON.stringify(self ?? {}));
    const claimed = new CacheFolder(root, folder, self, logger, { ...defaultTiming, ...timing });
    void claimed.sweep();
    return claimed;
  }

  /**
   * Removes the folders of dead owners in the root (one sweep at a time; a call while one runs waits for it and
   * sweeps again). Runs at start and with every heartbeat, so a predecessor in another pid namespace, seen alive at
   * start, is removed once its mark is stale.
   */
  sweep(): Promise<void> {
    this.sweeping = this.sweeping.then(() => this.sweepOnce().catch((error: unknown) => this.logger.warn({ err: error }, "the repository cache's root could not be swept; it is tried again later")));
    return this.sweeping;
  }

  /** Stops marking and sweeping, and removes this process's folder; a removal under way is left for the next start. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await rm(this.folder, { recursive: true, force: true });
  }

  private async beat(): Promise<void> {
    const now = new Date();
    await utimes(path.join(this.folder, ownerFile), now, now).catch((error: unknown) => this.logger.warn({ err: error }, "the repository cache folder could not be marked alive"));
    await this.sweep();
  }

  private async sweepOnce(): Promise<void> {
    const names = await readdir(this.root);
    const ownName = path.basename(this.folder);
    let removed = 0;
    for (const name of names) {
      const folder = path.join(this.root, name);
      if (name.startsWith(removingPrefix)) {
        // a removal a dead replica began: nobody uses it
        await rm(folder, { recursive: true, force: true });
        continue;
      }
      if (name === ownName || !folderName.test(name) || !(await this.ownerIsDead(folder))) continue;
      const removing = path.join(this.root, `${removingPrefix}${randomUUID()}`);
      // another replica may have taken it first: then it is that one's to remove
      if (!(await rename(folder, removing).then(() => true, () => false))) continue;
      await rm(removing, { recursive: true, force: true });
      removed += 1;
    }
    if (removed > 0) this.logger.info({ removed }, "removed the repository cache folders that stopped tool-runners left");
  }

  private async ownerIsDead(folder: string): Promise<boolean> {
    const folderStat = await stat(folder).catch(() => undefined);
    if (!folderStat?.isDirectory() || (process.getuid !== undefined && folderStat.uid !== process.getuid())) return false;
    const markStat = await stat(path.join(folder, ownerFile)).catch(() => undefined);
    if (!markStat) return Date.now() - (await lastChange(folder, folderStat.mtimeMs)) > this.timing.unmarkedStaleMs;
    const owner = await readOwner(path.join(folder, ownerFile));
    if (owner && this.self && owner.boot === this.self.boot && owner.namespace === this.self.namespace) return (await startedOf(owner.pid)) !== owner.started;
    return Date.now() - markStat.mtimeMs > this.timing.staleMs;
  }
}

/** This process as an owner, or undefined where /proc does not say (then only the heartbeat tells). */
async function ownSelf(): Promise<Owner | undefined> {
  try {
    const [boot, namespace, started] = await Promise.all([readFile("/proc/sys/kernel/random/boot_id", "utf8"), readlink("/proc/self/ns/pid"), startedOf(process.pid)]);
    return started === undefined ? undefined : { pid: process.pid, boot: boot.trim(), namespace, started };
  } catch {
    return undefined;
  }
}

/** When process `pid` started (field 22 of /proc/<pid>/stat), or undefined when no such process runs. */
async function startedOf(pid: number): Promise<string | undefined> {
  const text = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => undefined);
  // the fields after the command's name, which may hold spaces and parentheses: state is field 3, start time 22
  const fields = text?.slice(text.lastIndexOf(")") + 2).split(" ");
  if (fields === undefined || fields[0] === "Z") return undefined;
  return fields[19];
}

/** The owner a folder names, or undefined when it names none this process can check. */
async function readOwner(file: string): Promise<Owner | undefined> {
  const parsed = parseJson(await readFile(file, "utf8").catch(() => ""));
  const owner = parsed.ok ? Owner.safeParse(parsed.value) : undefined;
  return owner?.success === true ? owner.data : undefined;
}

/** The latest change of `folder` or of an entry in it (a project's objects, a checkout made). */
async function lastChange(folder: string, folderMtimeMs: number): Promise<number> {
  const names = await readdir(folder).catch(() => []);
  const times = await Promise.all(names.map(async (name) => (await stat(path.join(folder, name)).catch(() => undefined))?.mtimeMs ?? 0));
  return Math.max(folderMtimeMs, ...times);
}
