import { randomUUID } from "node:crypto";
import { lstat, readdir, rm } from "node:fs/promises";
import path from "node:path";
import type { Logger } from "@agent-orchestrator/shared/runtime";
import { Checkout } from "./checkout.js";
import type { LocalRepository } from "./local-repository.js";

/** What a tool-runner's cache of repositories may hold on disk (docs/repositories.md "A tool-runner's cache"). */
export interface CacheLimits {
  /** bytes of every project's objects and checkouts together; past it the least recently used are removed */
  cacheMaxBytes: number;
  /** checkouts kept at most */
  checkouts: number;
  /**
   * a project's objects used this recently stay even past the budget: a file tool's read takes no hold on them,
   * so only time says that none is still under way (a minute by default)
   */
  objectsIdleMs?: number;
}

/** What the owner of the projects' object readers tells the cache. */
export interface ObjectsInUse {
  /** called when a project's objects are removed: the readers of its folder are to be closed */
  removed(key: string): void;
  /** when an object of the project was last read (ms, 0: never) */
  readAt(key: string): number;
}

/** A checkout a command works in, held until `release`: no sweep removes it meanwhile. */
export interface HeldCheckout {
  checkout: Checkout;
  release(): void;
}

interface CheckoutEntry {
  checkout: Checkout;
  usedAt: number;
  holds: number;
  /** bytes on disk when last measured; undefined before the first measure */
  bytes: number | undefined;
  measuredAt: number;
  /** a command ran in it since it was measured */
  changed: boolean;
}

/** A project's spare checkout (docs/repositories.md "A spare checkout"). */
interface SpareEntry {
  checkout: Checkout;
  /** the files tree it holds */
  files: string;
  /** settles when it is made (true) or given up (false) */
  made: Promise<boolean>;
  ready: boolean;
  bytes: number;
}

interface ProjectEntry {
  folder: string;
  usedAt: number;
  checkouts: Map<string, CheckoutEntry>;
  spare?: SpareEntry | undefined;
  /** the files a spare is wanted of, made at the next sweep that finds room for it */
  wanted?: { local: LocalRepository; files: string } | undefined;
}

const defaultObjectsIdleMs = 60_000;
// a sweep runs this long after a use: the uses of one turn make one sweep
const sweepPauseMs = 1_000;
// a checkout's files are counted by a walk, as long as git status's: once after its first command, then at most this often
const remeasureMs = 60_000;

/**
 * The bound on a tool-runner's cache of repositories (docs/repositories.md "A tool-runner's cache"): every
 * project's objects (`<project>.<generation>/repo.git`) and the checkouts of its working trees, each of which any
 * replica makes again from JetStream. After a command, and when a project is used, a sweep measures them and
 * removes the least recently used until at most `cacheMaxBytes` and `checkouts` are left: never a checkout a
 * command holds, never the objects of a project with a checkout left or used in the last `objectsIdleMs`. A use
 * that comes while its folder is being removed waits for the removal, then starts afresh. A project in use may
 * have one spare checkout, made by a sweep only where it fits within the limits and removed before any other: a
 * new chat's first command takes it instead of writing every file of the repository (`wantSpare`).
 */
export class RepositoryCache {
  private readonly projects = new Map<string, ProjectEntry>();
  /** folders being removed, by project key or checkout folder */
  private readonly removing = new Map<string, Promise<void>>();
  /** the last sweep run or queued, and the one queued and not started (which a new call joins) */
  private last: Promise<void> = Promise.resolve();
  private queued: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly limits: CacheLimits,
    private readonly logger: Logger,
    private readonly objects: ObjectsInUse,
    private readonly now: () => number = Date.now,
  ) {}

  /** Marks the objects of project key `key` (its folder `folder`) used now, once any removal of them is over. Call it before opening the folder. */
  async useProject(key: string, folder: string): Promise<void> {
    for (let removing = this.removalOf([key]); removing; removing = this.removalOf([key])) await removing;
    this.touch(key, folder);
    this.schedule();
  }

  /**
   * The checkout of `branch` in `local`'s folder, held until released: when there is none, the project's spare
   * becomes it (one being made is waited for: it is sooner done than a checkout of one's own), else it is made.
   */
  async holdCheckout(local: LocalRepository, branch: string): Promise<HeldCheckout> {
    const key = projectKey(local);
    const folder = path.join(local.folder, "checkouts", Buffer.from(branch).toString("hex"));
    for (;;) {
      const removing = this.removalOf([key, folder]);
      const project = this.projects.get(key);
      const making = project?.checkouts.has(folder) === false && project.spare?.ready === false ? project.spare.made : undefined;
      if (!removing && !making) break;
      await (removing ?? making);
    }
    // nothing awaited since the last look: no sweep can choose this checkout, nor the spare it takes, before it is held
    const project = this.touch(key, local.folder);
    let entry = project.checkouts.get(folder);
    if (!entry) {
      const spare = project.spare?.ready ? project.spare : undefined;
      if (spare) project.spare = undefined;
      const checkout = new Checkout(folder, local, spare && { folder: spare.checkout.folder, files: spare.files });
      entry = { checkout, usedAt: this.now(), holds: 0, bytes: spare?.bytes, measuredAt: spare ? this.now() : 0, changed: true };
      project.checkouts.set(folder, entry);
    }
    entry.holds += 1;
    const held = entry;
    let released = false;
    return {
      checkout: held.checkout,
      release: () => {
        if (released) return;
        released = true;
        held.holds -= 1;
        held.usedAt = this.now();
        held.changed = true;
        this.schedule();
      },
    };
  }

  /**
   * Asks for a spare checkout of `files` (a files tree: the default branch's last commit) for `local`'s project, unless
   * it has one: the next sweep with no command of the project running here makes it, where it fits within the limits,
   * counted as large as the project's largest checkout.
   */
  wantSpare(local: LocalRepository, files: string): void {
    const project = this.projects.get(projectKey(local));
    if (!project || project.spare || this.closed) return;
    project.wanted = { local, files };
    this.schedule();
  }

  /** Removes a project's objects and checkouts now (its repository was detached), unless a command holds one. */
  async forget(key: string): Promise<void> {
    const entry = this.projects.get(key);
    if (!entry || [...entry.checkouts.values()].some((checkout) => checkout.holds > 0)) return;
    await this.remove(key, () => this.removeProject(key, entry));
  }

  /**
   * Measures the cache and removes the least recently used until it is within its limits. One runs at a time; a
   * call while one runs is answered by the next, which starts when it ends and sees everything done before the call.
   */
  sweep(): Promise<void> {
    if (this.queued) return this.queued;
    const queued = this.last.then(async () => {
      this.queued = undefined;
      await this.sweepOnce().catch((error: unknown) => this.logger.warn({ err: error }, "the repository cache could not be swept; it is tried again after the next command"));
    });
    this.queued = queued;
    this.last = queued;
    return queued;
  }

  /** Stops sweeping and making spares (the process stops; its folder is removed whole once this settles). */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await Promise.all([...this.projects.values()].flatMap((project) => (project.spare ? [project.spare.made] : [])));
  }

  /** A sweep a moment from now, unless one is due already: uses close together make one sweep. */
  private schedule(): void {
    if (this.closed || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.sweep();
    }, sweepPauseMs);
    this.timer.unref();
  }

  private touch(key: string, folder: string): ProjectEntry {
    const entry = this.projects.get(key) ?? { folder, usedAt: 0, checkouts: new Map<string, CheckoutEntry>() };
    entry.usedAt = this.now();
    this.projects.set(key, entry);
    return entry;
  }

  private async sweepOnce(): Promise<void> {
    const sizes = new Map<string, number>();
    let total = 0;
    for (const [key, project] of this.projects) {
      const objects = await folderBytes(project.folder, new Set([path.join(project.folder, "checkouts")]));
      sizes.set(key, objects);
      total += objects;
      for (const checkout of project.checkouts.values()) {
        // a held checkout is being changed: counted as last measured, measured again once released
        if (checkout.holds === 0 && checkout.changed && (checkout.bytes === undefined || this.now() - checkout.measuredAt >= remeasureMs)) {
          checkout.changed = false;
          checkout.measuredAt = this.now();
          checkout.bytes = await folderBytes(checkout.checkout.folder);
        }
        total += checkout.bytes ?? 0;
      }
      total += project.spare?.bytes ?? 0;
    }
    let checkouts = [...this.projects.values()].reduce((count, project) => count + project.checkouts.size + (project.spare ? 1 : 0), 0);
    const idleMs = this.limits.objectsIdleMs ?? defaultObjectsIdleMs;
    while (total > this.limits.cacheMaxBytes || checkouts > this.limits.checkouts) {
      const overCount = checkouts > this.limits.checkouts;
      const victim = this.oldestRemovable(overCount, idleMs);
      if (!victim) {
        this.logger.warn({ bytes: total, max_bytes: this.limits.cacheMaxBytes, checkouts }, "the repository cache is past its limits, and what is in it is in use");
        return;
      }
      if (victim.kind === "spare") {
        const { project, spare } = victim;
        total -= spare.bytes;
        checkouts -= 1;
        project.spare = undefined;
        await this.remove(spare.checkout.folder, () => spare.checkout.discard());
      } else if (victim.kind === "checkout") {
        const { project, folder, entry } = victim;
        total -= entry.bytes ?? 0;
        checkouts -= 1;
        project.checkouts.delete(folder);
        await this.remove(folder, () => entry.checkout.discard());
      } else {
        const { key, project } = victim;
        // chosen only once its checkouts are gone
        total -= sizes.get(key) ?? 0;
        await this.remove(key, () => this.removeProject(key, project));
      }
    }
    for (const project of this.projects.values()) {
      const wanted = project.wanted;
      // made while no command of the project runs here (its checkout may be being written): the release's sweep makes it
      if (!wanted || this.closed || [...project.checkouts.values()].some((entry) => entry.holds > 0)) continue;
      project.wanted = undefined;
      if (project.spare) continue;
      const bytes = Math.max(0, ...[...project.checkouts.values()].map((entry) => entry.bytes ?? 0));
      if (total + bytes > this.limits.cacheMaxBytes || checkouts + 1 > this.limits.checkouts) continue;
      total += bytes;
      checkouts += 1;
      this.makeSpare(project, wanted.local, wanted.files, bytes);
    }
  }

  /**
   * Starts making the project's spare, counted as `bytes` (not walked again: a walk of 50,000 files takes seconds); a
   * use of it meanwhile waits (holdCheckout), a removal of the project too.
   */
  private makeSpare(project: ProjectEntry, local: LocalRepository, files: string, bytes: number): void {
    // a folder of its own: one taken may still wait for its rename while the next is made
    const checkout = new Checkout(path.join(project.folder, "checkouts", `spare-${randomUUID()}`), local);
    const made = checkout.makeSpare(files).then(
      () => {
        spare.ready = true;
        return true;
      },
      async (error: unknown) => {
        this.logger.warn({ err: error, project_id: local.project }, "a spare checkout could not be made; a new chat's first command makes its own");
        if (project.spare === spare) project.spare = undefined;
        await checkout.discard().catch(() => undefined);
        return false;
      },
    );
    const spare: SpareEntry = { checkout, files, made, ready: false, bytes };
    project.spare = spare;
  }

  /**
   * A spare that is made, else the least recently used checkout no command holds, or (unless only checkouts are
   * too many) a project's objects once none of its checkouts is left and no tool used it for `idleMs`.
   */
  private oldestRemovable(checkoutsOnly: boolean, idleMs: number) {
    type Victim =
      | { kind: "spare"; project: ProjectEntry; spare: SpareEntry }
      | { kind: "checkout"; usedAt: number; project: ProjectEntry; folder: string; entry: CheckoutEntry }
      | { kind: "objects"; usedAt: number; key: string; project: ProjectEntry };
    for (const project of this.projects.values()) {
      if (project.spare?.ready) return { kind: "spare", project, spare: project.spare } satisfies Victim;
    }
    let oldest: Exclude<Victim, { kind: "spare" }> | undefined;
    const now = this.now();
    for (const [key, project] of this.projects) {
      for (const [folder, entry] of project.checkouts) {
        if (entry.holds === 0 && (!oldest || entry.usedAt < oldest.usedAt)) oldest = { kind: "checkout", usedAt: entry.usedAt, project, folder, entry };
      }
      const usedAt = Math.max(project.usedAt, this.objects.readAt(key));
      if (checkoutsOnly || project.checkouts.size > 0 || project.spare || now - usedAt < idleMs) continue;
      if (!oldest || usedAt < oldest.usedAt) oldest = { kind: "objects", usedAt, key, project };
    }
    return oldest;
  }

  private async removeProject(key: string, project: ProjectEntry): Promise<void> {
    this.projects.delete(key);
    // a spare being made is written into the folder until it is
    await project.spare?.made;
    this.objects.removed(key);
    await rm(project.folder, { recursive: true, force: true, maxRetries: 3 });
  }

  /** Runs `removal` of what `key` names; a use of it meanwhile waits for it (removalOf). */
  private async remove(key: string, removal: () => Promise<void>): Promise<void> {
    const removing = removal().finally(() => this.removing.delete(key));
    this.removing.set(key, removing);
    await removing;
  }

  /** A removal under way of what one of `keys` names (never failing), or undefined: a use waits for it, then looks again. */
  private removalOf(keys: readonly string[]): Promise<void> | undefined {
    const removing = keys.map((key) => this.removing.get(key)).find((promise) => promise !== undefined);
    return removing?.catch(() => undefined);
  }
}

/** The key of a local repository's objects: its project and generation. */
export function projectKey(local: Pick<LocalRepository, "project" | "generation">): string {
  return `${local.project}.${local.generation}`;
}

/** Bytes of the files under `folder` (links counted as themselves), leaving out the folders in `skipped`. */
async function folderBytes(folder: string, skipped: ReadonlySet<string> = new Set()): Promise<number> {
  let total = 0;
  const pending = [folder];
  for (let at = pending.pop(); at !== undefined; at = pending.pop()) {
    const entries = await readdir(at, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const file = path.join(at, entry.name);
      if (entry.isDirectory()) {
        if (!skipped.has(file)) pending.push(file);
        continue;
      }
      total += (await lstat(file).catch(() => undefined))?.size ?? 0;
    }
  }
  return total;
}
