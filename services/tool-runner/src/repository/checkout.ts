import { randomUUID } from "node:crypto";
import { copyFile, lstat, mkdir, readFile, rename, rm, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { GitFailed, runGit, type GitRun } from "../git/git-command.js";
import { readIndex } from "../git/index-file.js";
import { readCommandHead, readCommandRef, readIndexSeal, readPlainFile, takeCommandObjects, type IndexSeal } from "./command-git-files.js";
import type { LocalRepository } from "./local-repository.js";
import type { TreeState } from "./repository-values.js";
import { stagedTree } from "./staged-changes.js";
import { editTree } from "./tree-edits.js";
import type { TreeMonitor } from "./monitor-hook.js";
import { TreeReader } from "./tree-reader.js";
import { TreeWatcher } from "./tree-watcher.js";
import { unracyIndex, unracyWorthMs } from "./unracy-index.js";

/** What a command gets: the working tree, its `.git`, and the repository's objects (read-only for the command). */
export interface CheckoutPlace {
  /** the working tree's files; `directory/.git` is a `gitdir:` file naming `gitDirectory` */
  directory: string;
  /** the working tree's `.git`, which the command may change */
  gitDirectory: string;
  /** the repository's objects, which `gitDirectory/objects/info/alternates` names; bind it read-only */
  objectDirectory: string;
  /**
   * the change log and hook of the command's `core.fsmonitor` (read-only), where the hook makes its cookies, and
   * the command's `core.untrackedCache` (monitor-hook.ts: `true` only until the monitor's epoch gave its first answer)
   */
  monitor: TreeMonitor;
}

/** What a command left, as the host read it: the new trees and commits (all stored), and what was new. */
export interface CommandOutcome {
  files: string;
  index: string;
  head: string;
  detached: boolean;
  branchHead: string;
}

/** What a checkout shows, so it is brought to a new state by changing only what differs. */
interface Shown {
  branch: string;
  files: string;
  index: string;
  head: string;
  detached: boolean;
  branchHead: string;
  /** a spare (makeSpare): files of no branch yet, with no `.git` for a command; whichever chat takes it moves it */
  spare?: true;
}

/** A spare checkout handed to a chat's checkout (docs/repositories.md "A spare checkout"): its folder, and the files tree its host index holds. */
export interface TakenSpare {
  folder: string;
  files: string;
}

/** How much one command may add. */
export interface PersistLimits {
  maxNewBytes: number;
}

const indexMaxBytes = 512 * 1024 * 1024;
/**
 * git's parallel checkout for the host's `read-tree -u` (git-config(1) `checkout.workers`; only past 100 files): the
 * files are inflated and written by 8 processes, as a disk of many small writes then waits less (50,000 small files:
 * 2.8 s → 1.2 s; 2,000 of 256 KiB: 2.6 s → 0.4 s, on a 2-core machine).
 */
const checkoutSettings = [["checkout.workers", "8"]] as const;

/**
 * A working tree on this tool-runner's disk for a command (docs/repositories.md "A tool-runner's cache"): a
 * cache of a state in KV, made from its trees, brought to a newer state by `git read-tree -m -u` (only what
 * differs is written), and read back after the command (`persist`). Its folder holds the files (`tree/`), the
 * command's `.git` (`gitdir/`) and the host's own bookkeeping (`host/`: the index that follows the files, what
 * the checkout shows), which the command never gets. While it is kept, a watcher follows what changes in its
 * files, so reading them back costs what changed (docs/repositories.md "What changed, without reading every file").
 */
export class Checkout {
  readonly place: CheckoutPlace;
  private readonly hostFolder: string;
  private watcher: TreeWatcher | undefined;
  private trees: TreeReader | undefined;
  /** the command's index as the host last knew it, and its tree: unchanged since, its tree is known */
  private knownIndex: { seal: IndexSeal; tree: string } | undefined;
  /**
   * The files tree the host's index holds (undefined: not known, as after a restart). A command's files are made a
   * tree without the host's index, which then holds an older tree until a full read or a move needs it (syncIndex).
   */
  private indexFiles: string | undefined;
  /** files hashed since the host's index held `indexFiles`: their entries there are out of date, times included */
  private readonly staleEntries = new Set<string>();

  /** a spare this checkout starts from: its folder becomes this one at the first `prepare` */
  private spare: TakenSpare | undefined;

  constructor(
    readonly folder: string,
    private readonly local: LocalRepository,
    spare?: TakenSpare,
  ) {
    this.spare = spare;
    this.place = {
      directory: path.join(folder, "tree"),
      gitDirectory: path.join(folder, "gitdir"),
      objectDirectory: local.objectDirectory,
      monitor: { folder: path.join(folder, "monitor"), cookies: path.join(folder, "monitor-cookies"), untrackedCache: "true" },
    };
    this.hostFolder = path.join(folder, "host");
  }

  /** Brings the checkout to `state`: made whole when there is none (or it cannot be moved), else moved. */
  async prepare(state: TreeState): Promise<void> {
    await this.takeSpare();
    const shown = await this.shown();
    const wanted = shownOf(state);
    if (shown && sameShown(shown, wanted)) {
      // the same state: a command's `.git` is written again in case the last command broke it
      const noIndex = !(await lstat(path.join(this.place.gitDirectory, "index")).catch(() => undefined))?.isFile();
      await this.writeGitState(wanted, noIndex);
      await this.watch(noIndex);
      return;
    }
    if (shown && (shown.branch === state.branch || shown.spare)) {
      const moved = await this.syncIndex(shown.files)
        .then(() => (shown.files === state.files ? undefined : this.git({ settings: checkoutSettings, args: ["read-tree", "-m", "-u", shown.files, state.files] })))
        .then(
          () => true,
          () => false,
        );
      if (moved) {
        this.indexFiles = state.files;
        // a spare has no command's `.git` yet: its index is made whole
        const newIndex = shown.spare === true || shown.index !== state.index;
        await this.writeGitState(wanted, newIndex);
        await this.watch(newIndex);
        return;
      }
    }
    await this.checkOutWhole(state.files);
    await this.writeGitState(wanted, true);
    await this.watch(true);
  }

  /**
   * Makes this checkout a spare of `files` (docs/repositories.md "A spare checkout"): the files and the host's index
   * only, the index dated past the files so the first git status hashes none of them. No watcher runs on a spare, no
   * command gets it; a chat's checkout takes it whole (`TakenSpare`) and moves it to its own state.
   */
  async makeSpare(files: string): Promise<void> {
    await this.checkOutWhole(files);
    await this.writeShown({ branch: "", files, index: files, head: "", detached: false, branchHead: "", spare: true });
  }

  /** Writes `files` into an empty folder (whatever was there goes): every file, and the host's index of them. */
  private async checkOutWhole(files: string): Promise<void> {
    await this.discard();
    await mkdir(this.place.directory, { recursive: true, mode: 0o755 });
    await mkdir(this.hostFolder, { recursive: true, mode: 0o700 });
    const writing = Date.now();
    await this.git({ settings: checkoutSettings, args: ["read-tree", "--reset", "-u", files] });
    this.indexFiles = files;
    this.staleEntries.clear();
    if (Date.now() - writing >= unracyWorthMs) await unracyIndex(this.hostIndex);
  }

  /** The spare this checkout was given becomes its folder (once); when it cannot, the checkout is made whole as without one. */
  private async takeSpare(): Promise<void> {
    const spare = this.spare;
    if (spare === undefined) return;
    this.spare = undefined;
    await rm(this.folder, { recursive: true, force: true });
    const taken = await rename(spare.folder, this.folder).then(
      () => true,
      () => false,
    );
    if (taken) this.indexFiles = spare.files;
    else await rm(spare.folder, { recursive: true, force: true });
  }

  /**
   * Reads what the command left (docs/repositories.md "withWorkingTree", step 4) and stores every new object:
   * the files as a tree (`git add -A` into the host's index, `git write-tree`), the command's index as a tree,
   * HEAD and the branch as the command left them, and one pack of everything new. Returns the outcome to record;
   * the checkout then shows it.
   */
  async persist(before: TreeState, limits: PersistLimits): Promise<CommandOutcome> {
    const incoming = path.join(this.hostFolder, `incoming-${randomUUID()}`);
    await mkdir(path.join(incoming, "pack"), { recursive: true });
    try {
      const { gitDirectory } = this.place;
      const alternates = [this.local.objectDirectory];
      const taken = await takeCommandObjects(gitDirectory, incoming, this.local.gitDir, alternates, limits.maxNewBytes);
      // what the watcher saw, else (in doubt) every file
      const files = (await this.changedFiles(before.files, incoming)) ?? (await this.readAllFiles(before.files, incoming));
      const index = (await this.commandIndexTree(incoming)) ?? before.index;
      const head = await readCommandHead(gitDirectory);
      const branchRef = `refs/heads/${before.branch}`;
      const branchHead = (await readCommandRef(gitDirectory, branchRef)) ?? before.branch_head ?? before.head;
      const onBranch = head !== undefined && "branch" in head && head.branch === before.branch;
      const headCommit = head === undefined ? before.head : "commit" in head ? head.commit : ((await readCommandRef(gitDirectory, `refs/heads/${head.branch}`)) ?? before.head);
      const outcome: CommandOutcome = { files, index, head: onBranch ? branchHead : headCommit, detached: !onBranch, branchHead };
      const previous = [before.files, before.index, before.head, before.branch_head ?? before.head];
      const roots = [outcome.files, outcome.index, outcome.head, outcome.branchHead];
      // nothing new is named (a command that changed nothing): no pack to make, and no walk of the trees to find that out;
      // the command left no object of its own: what is new is exactly what the host's git wrote into `incoming`
      const named = roots.some((root) => !previous.includes(root));
      if (named && taken.files.length === 0) await this.local.storeLoose(incoming, limits.maxNewBytes);
      else if (named) await this.local.storeNew(incoming, { include: [...new Set([outcome.files, outcome.index, outcome.head, outcome.branchHead])], exclude: [...new Set(previous)] }, limits.maxNewBytes).catch((error: unknown) => {
        // a commit or index naming objects the command did not leave (or left under another object's name)
        if (error instanceof GitFailed) throw new AppError("WRITE_FAILED", "The command left git objects that are missing or damaged (a commit naming what the repository does not hold); nothing it changed was kept", { cause: error });
        throw error;
      });
      // stored: the command's own copies are no longer needed, and the next command starts with none
      await Promise.all(taken.files.map((file) => unlink(file).catch(() => undefined)));
      await this.writeShown({ branch: before.branch, ...outcome });
      return outcome;
    } finally {
      await rm(incoming, { recursive: true, force: true });
    }
  }

  /**
   * Writes hook `name` into the command's `.git/hooks` (docs/repositories.md "Commits by the model"): only the
   * command's own git runs it, inside its sandbox; the host's git never runs a hook. Written by a rename over
   * whatever a command left there, a link included.
   */
  async writeHook(name: string, script: string): Promise<void> {
    await plainFolders(this.place.gitDirectory, ["hooks"]);
    await replaceFile(path.join(this.place.gitDirectory, "hooks", name), script, 0o755);
  }

  /**
   * Writes the repository's other branches and tags into the command's `.git` as `packed-refs` (docs/repositories.md
   * "Commits by the model"), so `git log main` and `git diff main...HEAD` work in the sandbox; the working tree's own
   * branch stays the loose ref `writeGitState` wrote. Only that branch is ever kept from a command: moving another
   * ref there moves it in this checkout only.
   */
  async writeRefs(refs: ReadonlyArray<{ name: string; id: string }>, ownBranch: string): Promise<void> {
    const own = `refs/heads/${ownBranch}`;
    const lines = refs
      .filter((ref) => ref.name !== own)
      .map((ref) => `${ref.id} ${ref.name}\n`)
      .sort();
    await replaceFile(path.join(this.place.gitDirectory, "packed-refs"), `# pack-refs with: sorted\n${lines.join("")}`);
  }

  /** Removes the checkout whole (and a spare it was given and has not taken); the next `prepare` makes it again. */
  async discard(): Promise<void> {
    const spare = this.spare;
    this.spare = undefined;
    if (spare) await rm(spare.folder, { recursive: true, force: true });
    this.watcher?.close();
    this.watcher = undefined;
    this.knownIndex = undefined;
    this.indexFiles = undefined;
    this.staleEntries.clear();
    await rm(this.folder, { recursive: true, force: true });
  }

  /**
   * The files tree after the paths the watcher saw change, made from `before` (the tree the checkout showed) without
   * the host's index; undefined when the watcher cannot vouch for its window or the paths alone cannot say what
   * `git add -A` would do (docs/repositories.md "What changed, without reading every file").
   */
  private async changedFiles(before: string, incoming: string): Promise<string | undefined> {
    const changed = await this.watcher?.changes();
    if (changed === undefined) return undefined;
    if (changed.size === 0) return before;
    const trees = (this.trees ??= new TreeReader(this.local));
    const scratchIndex = path.join(this.hostFolder, `staged-index-${randomUUID()}`);
    const cwd = this.place.directory;
    const staged = await stagedTree(
      {
        git: (args, input) => this.git({ objectDirectory: incoming, alternates: [this.local.objectDirectory], indexFile: scratchIndex, args, cwd, ...(input === undefined ? {} : { input }) }),
        directory: cwd,
        scratchIndex,
        indexed: (name) => trees.lookup(before, name),
        edit: (edits) => editTree(trees, before, edits, incoming),
      },
      changed,
    );
    for (const name of staged?.taken ?? []) this.staleEntries.add(name);
    return staged?.tree;
  }

  /** Every file read into the host's index (`git add -A`: only files whose size or time changed are hashed again), as a tree. */
  private async readAllFiles(before: string, incoming: string): Promise<string> {
    const inIncoming = { objectDirectory: incoming, alternates: [this.local.objectDirectory] };
    // the index must hold `before` first: a file it lacks would be untracked, and left out if an ignore rule names it;
    // the times of its entries need not be right, git add hashes again any file whose time differs
    await this.syncIndex(before, false);
    this.indexFiles = undefined;
    await this.git({ ...inIncoming, args: ["add", "-A", "--", "."], cwd: this.place.directory });
    const files = (await this.git({ ...inIncoming, args: ["write-tree"] })).stdout.toString("latin1").trim();
    this.indexFiles = files;
    this.staleEntries.clear();
    return files;
  }

  /**
   * Brings the host's index to the files tree `files` (which the checkout's files show) when it holds another:
   * `git read-tree -m` keeps the times and sizes of every entry that did not change (`-i`: the files are those of
   * `files` already, not of the index's older entries). With `withTimes`, the entries of the files hashed since get
   * their times too (`git read-tree -m -u` takes a file whose time differs from its entry for one a user changed):
   * those the read-back took, or, not known (a restarted tool-runner), every file whose time differs.
   */
  private async syncIndex(files: string, withTimes = true): Promise<void> {
    if (this.indexFiles === files) return;
    const stale = this.indexFiles === undefined ? undefined : [...this.staleEntries];
    this.indexFiles = undefined;
    await this.git({ args: ["read-tree", "-m", "-i", files] });
    if (withTimes) {
      const cwd = this.place.directory;
      if (stale === undefined) await this.git({ args: ["update-index", "-q", "--refresh"], cwd });
      else {
        const trees = (this.trees ??= new TreeReader(this.local));
        const held = await Promise.all(stale.map(async (name) => ((await trees.lookup(files, name)).found === "entry" ? [name] : [])));
        const names = held.flat();
        if (names.length > 0) await this.git({ args: ["update-index", "-z", "--stdin"], cwd, input: names.map((name) => `${name}\0`).join("") });
      }
    }
    this.staleEntries.clear();
    this.indexFiles = files;
  }

  /**
   * Starts the watcher of the checkout's files (and the change log of the command's git hook), unless it runs.
   * `newIndex`: the command's index was written by the host, without the monitor's token and the untracked cache.
   */
  private async watch(newIndex: boolean): Promise<void> {
    this.watcher ??= await TreeWatcher.start(this.place.directory, path.join(this.hostFolder, "watch"), this.place.monitor);
    const log = this.watcher.log;
    if (log === undefined) return;
    await log.reset(newIndex);
    this.place.monitor.untrackedCache = log.fresh ? "true" : "keep";
  }

  /**
   * The command's index as a tree, or undefined when git cannot make one of it (a conflict, a damaged file). An index
   * whose size, inode and git's own checksum at its end are those the host last saw has the tree it had then.
   */
  private async commandIndexTree(incoming: string): Promise<string | undefined> {
    const file = path.join(this.place.gitDirectory, "index");
    const seal = await readIndexSeal(file);
    if (seal !== undefined && this.knownIndex !== undefined && sameSeal(seal, this.knownIndex.seal)) return this.knownIndex.tree;
    const bytes = await readPlainFile(file, indexMaxBytes);
    if (!bytes) return undefined;
    // a cache tree valid throughout names the tree git's write-tree would give, which takes it as it is
    const cached = readIndex(bytes, false)?.cacheTree;
    if (cached !== undefined && (await this.holds(incoming, cached))) {
      this.knownIndex = seal === undefined ? undefined : { seal, tree: cached };
      return cached;
    }
    const copy = path.join(this.hostFolder, `command-index-${randomUUID()}`);
    try {
      await writeFile(copy, bytes, { mode: 0o600 });
      const written = await this.git({ indexFile: copy, objectDirectory: incoming, alternates: [this.local.objectDirectory], args: ["write-tree"] });
      const tree = written.stdout.toString("latin1").trim();
      this.knownIndex = seal === undefined ? undefined : { seal, tree };
      return tree;
    } catch {
      return undefined;
    } finally {
      await rm(copy, { force: true });
    }
  }

  /** Whether tree `id` is here, as a loose object the command left or in the repository's objects (else git is asked). */
  private async holds(incoming: string, id: string): Promise<boolean> {
    if (await lstat(path.join(incoming, id.slice(0, 2), id.slice(2))).then(() => true, () => false)) return true;
    return this.local.read(id).then(
      (object) => object.type === "tree",
      () => false,
    );
  }

  /**
   * Writes the command's `.git` for `shown`: HEAD, the branch, the alternates naming the repository's objects, a
   * config of the host's when there is none, and (with `withIndex`) the index, made from the host's index so the
   * files' times and sizes are known and `git status` hashes nothing it need not.
   */
  private async writeGitState(shown: Shown, withIndex: boolean): Promise<void> {
    const gitDirectory = this.place.gitDirectory;
    await plainFolders(this.folder, ["gitdir"]);
    for (const folder of [["objects", "info"], ["refs", "tags"]]) await plainFolders(gitDirectory, folder);
    await replaceFile(path.join(gitDirectory, "HEAD"), shown.detached ? `${shown.head}\n` : `ref: refs/heads/${shown.branch}\n`);
    const branchNames = ["refs", "heads", ...shown.branch.split("/")];
    await plainFolders(gitDirectory, branchNames.slice(0, -1));
    const branchFile = path.join(gitDirectory, ...branchNames);
    await rm(branchFile, { recursive: true, force: true });
    await replaceFile(branchFile, `${shown.branchHead}\n`);
    const alternates = path.relative(path.join(gitDirectory, "objects"), this.local.objectDirectory);
    await replaceFile(path.join(gitDirectory, "objects", "info", "alternates"), `${alternates}\n`);
    if (!(await readPlainFile(path.join(gitDirectory, "config"), 1024 * 1024))) {
      await replaceFile(path.join(gitDirectory, "config"), "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tuntrackedCache = true\n");
    }
    if (withIndex) {
      const made = path.join(this.hostFolder, `index-${randomUUID()}`);
      await copyFile(this.hostIndex, made);
      await this.git({ indexFile: made, args: ["read-tree", "-m", shown.index] });
      await rename(made, path.join(gitDirectory, "index"));
      const seal = await readIndexSeal(path.join(gitDirectory, "index"));
      this.knownIndex = seal === undefined ? undefined : { seal, tree: shown.index };
    }
    // written only when it differs: the watcher then sees no change of the host's own between two commands
    const pointer = `gitdir: ${path.relative(this.place.directory, gitDirectory)}\n`;
    const gitFile = path.join(this.place.directory, ".git");
    if ((await readPlainFile(gitFile, 4096))?.toString("utf8") !== pointer) await replaceFile(gitFile, pointer);
    await this.writeShown(shown);
  }

  private get hostIndex(): string {
    return path.join(this.hostFolder, "index");
  }

  private git(run: Omit<GitRun, "gitDir">) {
    return runGit({ gitDir: this.local.gitDir, workTree: this.place.directory, indexFile: this.hostIndex, ...run });
  }

  private async shown(): Promise<Shown | undefined> {
    try {
      return JSON.parse(await readFile(path.join(this.hostFolder, "shown.json"), "utf8")) as Shown;
    } catch {
      return undefined;
    }
  }

  private async writeShown(shown: Shown): Promise<void> {
    await replaceFile(path.join(this.hostFolder, "shown.json"), JSON.stringify(shown));
  }
}

/** What a checkout of `state` shows. */
function shownOf(state: TreeState): Shown {
  return { branch: state.branch, files: state.files, index: state.index, head: state.head, detached: state.detached, branchHead: state.branch_head ?? state.head };
}

function sameSeal(a: IndexSeal, b: IndexSeal): boolean {
  return a.inode === b.inode && a.size === b.size && a.checksum.equals(b.checksum);
}

function sameShown(a: Shown, b: Shown): boolean {
  return a.branch === b.branch && a.files === b.files && a.index === b.index && a.head === b.head && a.detached === b.detached && a.branchHead === b.branchHead;
}

/**
 * Makes `names` below `base` a chain of real folders: whatever a command left in the way (a link to a host
 * folder, a file) is removed first, so nothing the host writes into a command's `.git` lands outside it.
 */
async function plainFolders(base: string, names: readonly string[]): Promise<void> {
  let at = base;
  for (const name of names) {
    at = path.join(at, name);
    const seen = await lstat(at).catch(() => undefined);
    if (seen?.isDirectory()) continue;
    if (seen) await rm(at, { force: true });
    await mkdir(at, { mode: 0o755 });
  }
}

/** Writes `file` whole by a rename, which replaces whatever is there (a link included) without following it. */
async function replaceFile(file: string, text: string, mode = 0o644): Promise<void> {
  const temporary = `${file}.${randomUUID()}.tmp`;
  await writeFile(temporary, text, { mode });
  await rename(temporary, file);
}
