import { randomUUID } from "node:crypto";
import { watch, type FSWatcher } from "node:fs";
import { lstat, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { MonitorLog } from "./monitor-log.js";

/*
 * No dependency: Node's own fs.watch on one folder is libuv's inotify watch, which is all this needs; the packaged
 * watchers either poll (Node's recursive fs.watch on Linux) or drop inotify's overflow without a word.
 */

/** inotify's queue (per process): past it the kernel drops events, so at half of it a window is not trusted. */
const queueLength = await readFile("/proc/sys/fs/inotify/max_queued_events", "utf8").then(
  (text) => Number.parseInt(text, 10) || 16_384,
  () => 16_384,
);
/** Every event this process read from inotify, for the overflow check of each window. */
let eventsRead = 0;
const syncTimeoutMs = 2_000;

/**
 * What changed in a checkout's working tree since the last `changes()` (docs/repositories.md "What changed, without
 * reading every file"): inotify watches on each of its folders, the paths they name kept as a set. `changes()`
 * syncs first (watchman's cookie: a file the host makes in a folder of its own, watched by the same inotify queue, so
 * its event comes after every earlier one; not in the tree, whose root folder's time git's untracked cache keeps)
 * and answers undefined whenever it cannot be sure it saw everything: the watcher started since the last full
 * read, a watch could not be added (the user's inotify watches used up), an event without a name, the cookie not
 * seen in time, more events read since the last sync than half of inotify's queue (the kernel may have dropped some),
 * or a file with more than one link (a write through its other name is reported in the other folder only). Then
 * the caller reads the whole tree, as before. A write through a shared memory map makes no event at all: the
 * limit every inotify watcher has (git's own monitor and watchman alike). With a `monitor`, the same events feed
 * the change log of the command's `core.fsmonitor` hook (monitor-log.ts), and its doubts end the log's epoch.
 */
export class TreeWatcher {
  /** each watched folder, with the inode it had when its watch was added */
  private readonly watchers = new Map<string, { watcher: FSWatcher; inode: number }>();
  private changed = new Set<string>();
  /** whether the last window can be trusted; false until a full read of the tree cleared it */
  private trusted = false;
  private eventsAtSync = eventsRead;
  /** a watch could not be added: no window is trusted while this watcher runs */
  private blind = false;
  private monitorWatch: FSWatcher | undefined;
  private eventsAtAck = eventsRead;
  private adding: Promise<void> = Promise.resolve();
  private readonly cookies = new Map<string, () => void>();
  private closed = false;

  private cookieWatch: FSWatcher | undefined;

  private constructor(
    readonly root: string,
    private readonly cookieFolder: string,
    /** the change log of the command's git hook, when there is one */
    readonly log: MonitorLog | undefined,
  ) {}

  /**
   * Watches every folder below `root` (links are not followed); its cookies go to `cookieFolder`, the host's alone.
   * With `monitor`, it also writes the hook's change log into `monitor.folder` and acks the hook's cookies made in
   * `monitor.cookies` (monitor-log.ts).
   */
  static async start(root: string, cookieFolder: string, monitor?: { folder: string; cookies: string }): Promise<TreeWatcher> {
    const log = monitor === undefined ? undefined : await MonitorLog.open(root, monitor.folder, monitor.cookies);
    const watcher = new TreeWatcher(root, cookieFolder, log);
    await mkdir(cookieFolder, { recursive: true, mode: 0o700 });
    try {
      watcher.cookieWatch = watch(cookieFolder, { persistent: false }, (_event, name) => {
        eventsRead += 1;
        if (name !== null) watcher.cookies.get(name)?.();
      });
      watcher.cookieWatch.on("error", () => watcher.distrust());
    } catch {
      watcher.distrust();
    }
    if (log !== undefined) {
      try {
        watcher.monitorWatch = watch(log.cookies, { persistent: false }, (_event, name) => watcher.hookCookie(name));
        watcher.monitorWatch.on("error", () => log.lostSight());
      } catch {
        log.lostSight();
      }
    }
    await watcher.watchBelow("", false);
    return watcher;
  }

  /**
   * The paths (relative, `/`-separated; files or folders, present or gone) that changed since the last call, or
   * undefined when the caller must read the whole tree. Either way the next window starts now.
   */
  async changes(): Promise<ReadonlySet<string> | undefined> {
    const synced = await this.sync();
    await this.adding;
    const changed = this.changed;
    const trusted = this.trusted && !this.blind && synced && eventsRead - this.eventsAtSync < queueLength / 2 && !this.closed;
    this.changed = new Set();
    this.eventsAtSync = eventsRead;
    this.trusted = !this.closed;
    if (!trusted) return undefined;
    for (const name of changed) {
      const seen = await lstat(path.join(this.root, name)).catch(() => undefined);
      if (seen?.isFile() && seen.nlink > 1) return undefined;
    }
    return changed;
  }

  /** Forgets what was seen: the next `changes()` answers undefined (the caller reads the whole tree). */
  distrust(): void {
    this.trusted = false;
    this.log?.doubt();
  }

  close(): void {
    this.closed = true;
    this.cookieWatch?.close();
    this.monitorWatch?.close();
    for (const { watcher } of this.watchers.values()) watcher.close();
    this.watchers.clear();
    for (const resolve of this.cookies.values()) resolve();
  }

  /** Makes a cookie file and waits for its event: every event before it has been read. */
  private async sync(): Promise<boolean> {
    const name = randomUUID();
    const file = path.join(this.cookieFolder, name);
    let seen = false;
    const arrived = new Promise<void>((resolve) =>
      this.cookies.set(name, () => {
        seen = true;
        resolve();
      }),
    );
    let timer: NodeJS.Timeout | undefined;
    try {
      await writeFile(file, "", { flag: "wx" });
      await Promise.race([arrived, new Promise<void>((resolve) => (timer = setTimeout(resolve, syncTimeoutMs)))]);
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
      this.cookies.delete(name);
      await rm(file, { force: true });
    }
    return seen && !this.closed;
  }

  /** The hook made a cookie (or something happened in its cookie folder): acked once every event before it is handled. */
  private hookCookie(name: string | null): void {
    eventsRead += 1;
    const log = this.log;
    if (log === undefined || name === null || !log.claim(name)) return;
    const overflowed = eventsRead - this.eventsAtAck >= queueLength / 2;
    this.eventsAtAck = eventsRead;
    // after the watches the earlier events add, so the folders they made are in the log before the ack
    this.adding = this.adding.then(() => log.acknowledge(name, overflowed).catch(() => log.doubt()));
  }

  /**
   * Watches the folder `relative` and every folder below it; each is watched before it is read, so nothing made
   * meanwhile is missed. `changed`: a folder made or moved in since the watcher started, which the log names.
   */
  private async watchBelow(relative: string, changed: boolean): Promise<void> {
    if (this.closed || this.watchers.has(relative)) return;
    const folder = path.join(this.root, relative);
    // the inode before the watch: a folder swapped in between is told by the next event on its name
    const inode = (await lstat(folder).catch(() => undefined))?.ino ?? -1;
    try {
      const watcher = watch(folder, { persistent: false, encoding: "buffer" }, (event, name) => this.seen(relative, event, name));
      watcher.on("error", () => this.distrust());
      this.watchers.set(relative, { watcher, inode });
    } catch (error) {
      // a folder gone meanwhile is reported by its parent; anything else (ENOSPC: no inotify watches left) is doubt
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
        this.blind = true;
        this.log?.lostSight();
      }
      return;
    }
    if (changed) this.log?.folderWatched(relative);
    const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (entry.isDirectory() && !(relative === "" && entry.name === ".git")) await this.watchBelow(join(relative, entry.name), changed);
    }
  }

  private seen(folder: string, event: string, name: Buffer | null): void {
    eventsRead += 1;
    if (name === null) {
      // an event on the folder itself (removed, moved): everything below it is in doubt
      this.changed.add(folder === "" ? "" : folder);
      if (folder === "") this.distrust();
      else this.log?.record(folder);
      return;
    }
    const text = name.toString("utf8");
    // a name that is not UTF-8 cannot be given back to git as it is: the window is in doubt
    if (!Buffer.from(text, "utf8").equals(name)) this.distrust();
    if (folder === "" && text === ".git") return;
    const relative = join(folder, text);
    this.changed.add(relative);
    this.log?.record(relative);
    // a content or mode change ("change": IN_MODIFY, IN_ATTRIB) never makes or removes a folder
    if (event !== "rename") return;
    // a folder made or moved in is watched (with all below it) before the next window is read; a watch whose folder
    // was moved away or replaced follows another inode now, and is made again
    this.adding = this.adding.then(async () => {
      const seen = await lstat(path.join(this.root, relative)).catch(() => undefined);
      if (seen?.isDirectory() && this.watchers.get(relative)?.inode === seen.ino) return;
      this.unwatchBelow(relative);
      if (seen?.isDirectory()) await this.watchBelow(relative, true);
    });
  }

  /** Stops watching `relative` and below: it is gone or no longer a folder. */
  private unwatchBelow(relative: string): void {
    for (const [folder, { watcher }] of this.watchers) {
      if (folder === relative || folder.startsWith(`${relative}/`)) {
        watcher.close();
        this.watchers.delete(folder);
      }
    }
  }
}

function join(folder: string, name: string): string {
  return folder === "" ? name : `${folder}/${name}`;
}
