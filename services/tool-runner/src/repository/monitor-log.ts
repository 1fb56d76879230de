import { randomBytes } from "node:crypto";
import { appendFileSync, lstatSync, renameSync, writeFileSync } from "node:fs";
import { mkdir, readdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { monitorHookScript } from "./monitor-hook.js";

/** A cookie the hook makes: `<pid>-<n>` (monitor-hook.ts), nothing else is acked. */
const cookieName = /^[0-9]{1,10}-[0-9]{1,2}$/;
/** Past this, a log starts a new epoch: the hook's answers stay small, and so does the disk it takes. */
const logMaxBytes = 8 * 1024 * 1024;
/** Paths kept between two acks at most; past it the next ack starts a new epoch (git would look at most files anyway). */
const pendingMaxPaths = 2_000;
/** An ack is removed once this old: the hook that waited for it has answered or given up long before. */
const ackKeptMs = 30_000;
/**
 * A name inside a folder the watcher started watching (made or moved in, its events before the watch lost): git
 * invalidates the untracked cache of a path's parent only, so naming a path below the folder makes git read the
 * folder itself again. Any name git accepts does; this one is never a file of the tree.
 */
const folderMarker = ".fsmonitor-folder";

/**
 * The change log a checkout's watcher writes for the `core.fsmonitor` hook of the command's git (monitor-hook.ts,
 * docs/repositories.md "git status in a command"), in a folder of the host's that the sandbox holds read-only:
 * `query` (the hook), `log-<epoch>` (the paths changed, NUL-ended, in the order their events were read) and
 * `ack-<cookie>` (the epoch and the log's length when the hook's cookie was seen). The cookies are made in a second
 * folder the sandbox may write, watched by the same inotify queue. An epoch is trusted from its start: a doubt of
 * the watcher (a watch lost or not added, events dropped, an event it cannot name, a changed file with a second
 * link, an ignore or attributes file, a nested `.git`) ends it, and the next ack names a new one, so every token
 * given before is answered `/` by the hook.
 */
export class MonitorLog {
  private epoch = newEpoch();
  private logBytes = 0;
  private pending = new Set<string>();
  private doubtful = false;
  /** watches that could not be added: every epoch is in doubt until the watcher is made again */
  private blind = false;
  private readonly acks = new Map<string, number>();
  /** no ack was given in this epoch yet: the command's next git status reads everything */
  private answered = false;

  private constructor(
    /** the working tree the paths are relative to */
    private readonly tree: string,
    /** the folder bound read-only: hook, logs, acks */
    readonly folder: string,
    /** the folder bound writable, where the hook makes its cookies */
    readonly cookies: string,
  ) {}

  /** Makes both folders afresh, the hook and an empty log of a new epoch. */
  static async open(tree: string, folder: string, cookies: string): Promise<MonitorLog> {
    const log = new MonitorLog(tree, folder, cookies);
    for (const made of [folder, cookies]) {
      await rm(made, { recursive: true, force: true });
      await mkdir(made, { mode: 0o755 });
    }
    await writeFile(path.join(folder, "query"), monitorHookScript, { mode: 0o755 });
    await writeFile(log.logFile, "", { mode: 0o644 });
    return log;
  }

  /** A path (relative, `/`-separated) that changed: a file or folder, present or gone. */
  record(relative: string): void {
    if (this.pending.size >= pendingMaxPaths) {
      this.doubtful = true;
      this.pending.clear();
    }
    if (!this.doubtful) this.pending.add(relative);
  }

  /** A folder the watcher started watching after a change (made or moved in, or replacing another). */
  folderWatched(relative: string): void {
    this.record(relative);
    this.record(`${relative}/${folderMarker}`);
  }

  /** The current epoch cannot be trusted: the next ack starts a new one. */
  doubt(): void {
    this.doubtful = true;
  }

  /** A watch could not be added: no epoch can be trusted while this watcher runs. */
  lostSight(): void {
    this.blind = true;
  }

  /**
   * Whether `name` (from the cookie folder's watch) is a cookie of the hook's not acked yet, there now (the event of
   * a cookie removed, by the host or a command, is no cookie); it is then the caller's to ack.
   */
  claim(name: string): boolean {
    if (!cookieName.test(name) || this.acks.has(name)) return false;
    if (!lstatSync(path.join(this.cookies, name), { throwIfNoEntry: false })?.isFile()) return false;
    this.acks.set(name, Date.now());
    return true;
  }

  /**
   * Acks the hook's cookie `name`: every event before its own has been read (the caller runs this after the watches
   * those events added), so the log is written up to here, then the ack names the epoch and the log's length.
   * `overflowed`: more events were read since the last ack than inotify's queue surely kept. Written with
   * synchronous calls (a few small files, at most `pendingMaxPaths` stats): the hook waits for this and nothing else.
   */
  async acknowledge(name: string, overflowed: boolean): Promise<void> {
    const batch = this.pending;
    this.pending = new Set();
    const doubtful = this.doubtful || this.blind || overflowed || this.anyDoubtful(batch);
    this.doubtful = false;
    const entries = doubtful ? Buffer.alloc(0) : Buffer.from([...batch].map((name) => `${name}\0`).join(""), "utf8");
    if (doubtful || this.logBytes + entries.length > logMaxBytes) this.startEpoch();
    this.answered = true;
    if (entries.length > 0) {
      appendFileSync(this.logFile, entries);
      this.logBytes += entries.length;
    }
    const temporary = path.join(this.folder, `.ack-${name}`);
    writeFileSync(temporary, `${this.epoch} ${this.logBytes}\n`, { mode: 0o644 });
    renameSync(temporary, path.join(this.folder, `ack-${name}`));
    await rm(path.join(this.cookies, name), { force: true }).catch(() => undefined);
    await this.pruneAcks();
  }

  /** Whether no answer was given in this epoch yet: the command's git will read everything once. */
  get fresh(): boolean {
    return !this.answered;
  }

  /**
   * Between two commands (nothing of the sandbox runs): removes the acks, the cookies and whatever a command left in
   * the cookie folder, and the logs of earlier epochs. The epoch goes on, so the command's index keeps its token,
   * unless `newEpoch` (the host wrote the command's index anew).
   */
  async reset(newEpoch: boolean): Promise<void> {
    if (newEpoch && this.answered) this.startEpoch();
    this.acks.clear();
    for (const entry of await readdir(this.folder).catch(() => [])) {
      if (entry !== "query" && entry !== `log-${this.epoch}`) await rm(path.join(this.folder, entry), { force: true });
    }
    for (const entry of await readdir(this.cookies).catch(() => [])) await rm(path.join(this.cookies, entry), { recursive: true, force: true });
  }

  private startEpoch(): void {
    this.epoch = newEpoch();
    this.logBytes = 0;
    this.answered = false;
    writeFileSync(this.logFile, "", { mode: 0o644 });
  }

  private get logFile(): string {
    return path.join(this.folder, `log-${this.epoch}`);
  }

  /** A batch git cannot take from the paths alone: a rules file, a nested `.git`, a changed file with another link. */
  private anyDoubtful(batch: ReadonlySet<string>): boolean {
    for (const name of batch) {
      const parts = name.split("/");
      if (parts.includes(".git") || parts.includes(".gitignore") || parts.includes(".gitattributes")) return true;
    }
    for (const name of batch) {
      if (name.endsWith(`/${folderMarker}`)) continue;
      const seen = lstatSync(path.join(this.tree, name), { throwIfNoEntry: false });
      if (seen?.isFile() && seen.nlink > 1) return true;
    }
    return false;
  }

  private async pruneAcks(): Promise<void> {
    const before = Date.now() - ackKeptMs;
    for (const [name, at] of this.acks) {
      if (at >= before) break;
      this.acks.delete(name);
      await rm(path.join(this.folder, `ack-${name}`), { force: true });
    }
  }
}

function newEpoch(): string {
  return randomBytes(8).toString("hex");
}
