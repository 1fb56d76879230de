import { randomUUID } from "node:crypto";
import { mkdir, open, readdir, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { runGit, type GitPlace } from "../git/git-command.js";
import { ObjectReader, type GitObject } from "../git/object-reader.js";
import type { RepositoryBucket } from "./repository-bucket.js";
import type { PackList } from "./repository-values.js";

/**
 * Packs a repository's pack list holds before the small ones are made one: every file write adds a pack, and a
 * replica fetches each pack it lacks, so a long list costs a cold replica many small fetches.
 */
export const packListLimit = 64;

/** Object ids a new pack is made of: those reachable from `include` and not from `exclude` (commits or trees). */
export interface PackRoots {
  include: readonly string[];
  exclude: readonly string[];
}

/**
 * One repository's objects on this tool-runner's disk (docs/repositories.md "A tool-runner's cache"): a bare
 * repository the host made (`repo.git`, its config the host's), holding the packs the pack list names, fetched
 * from the store when first needed, and read through one `git cat-file --batch`. New objects become a pack that
 * is stored, added to the pack list, then kept here too. Anything here can be deleted: it is made again.
 */
export class LocalRepository {
  readonly gitDir: string;
  private readonly reader: ObjectReader;
  private readonly sizes: ObjectReader;
  private readonly present = new Set<string>();
  private syncing: Promise<void> | undefined;
  /** when an object was last read here (ms): a long read (a search of every file) keeps the cache from removing these objects */
  readAt = 0;
  private consolidating: Promise<void> | undefined;

  private constructor(
    readonly folder: string,
    private readonly bucket: RepositoryBucket,
    readonly project: string,
    readonly generation: string,
    private readonly maxPacks: number,
  ) {
    this.gitDir = path.join(folder, "repo.git");
    this.reader = new ObjectReader({ gitDir: this.gitDir });
    this.sizes = new ObjectReader({ gitDir: this.gitDir }, true);
  }

  /** Makes the folder's bare repository (or takes the one there) for `project`'s repository of `generation`. */
  static async open(folder: string, bucket: RepositoryBucket, project: string, generation: string, maxPacks = packListLimit): Promise<LocalRepository> {
    const local = new LocalRepository(folder, bucket, project, generation, maxPacks);
    await mkdir(folder, { recursive: true, mode: 0o700 });
    if (!(await exists(path.join(local.gitDir, "HEAD")))) {
      const making = `${local.gitDir}.${randomUUID()}`;
      await runGit({ gitDir: making, args: ["init", "--bare", "-q"] });
      await rename(making, local.gitDir).catch(async () => rm(making, { recursive: true, force: true }));
    }
    for (const name of await readdir(local.packFolder).catch(() => [])) {
      if (name.endsWith(".idx")) local.present.add(name.slice(0, -".idx".length));
    }
    return local;
  }

  /** The folder of the packs; the sandbox binds `objects/` read-only (docs/repositories.md "withWorkingTree"). */
  get objectDirectory(): string {
    return path.join(this.gitDir, "objects");
  }

  /** Where git runs on these objects alone. */
  get place(): GitPlace {
    return { gitDir: this.gitDir };
  }

  /** The object `id`; a pack another replica stored since is fetched first. INTERNAL when no pack holds it. */
  async read(id: string): Promise<GitObject> {
    return (await this.found(id, this.reader)) ?? missing(id);
  }

  /** The type and size of object `id`, without its content. */
  async size(id: string): Promise<number> {
    return ((await this.found(id, this.sizes)) ?? missing(id)).size;
  }

  /** Fetches every pack the pack list names that is not here yet. */
  sync(): Promise<void> {
    this.syncing ??= this.fetchMissing().finally(() => {
      this.syncing = undefined;
    });
    return this.syncing;
  }

  /**
   * Makes one pack of the objects reachable from `roots.include` and not from `roots.exclude`, found here or in
   * `incoming` (a folder of loose objects and packs the host checked), stores it and adds it to the pack list,
   * then keeps it here. Returns its size in bytes (0: nothing was new). Refused over `maxBytes`.
   */
  storeNew(incoming: string, roots: PackRoots, maxBytes: number): Promise<number> {
    return this.pack(incoming, ["--revs"], `${[...roots.include, "--not", ...roots.exclude].join("\n")}\n`, maxBytes);
  }

  /**
   * Makes one pack of exactly the loose objects in `incoming` (objects the host wrote itself, a file tool's blob
   * and trees), stores it as `storeNew` does. Nothing is walked, so its cost follows the change, not the
   * repository's size. Returns its size in bytes (0: nothing was there).
   */
  async storeLoose(incoming: string, maxBytes: number): Promise<number> {
    const ids: string[] = [];
    for (const folder of await readdir(incoming).catch(() => [])) {
      if (!/^[0-9a-f]{2}$/.test(folder)) continue;
      for (const name of await readdir(path.join(incoming, folder))) if (/^[0-9a-f]{38}$/.test(name)) ids.push(`${folder}${name}`);
    }
    return ids.length === 0 ? 0 : this.pack(incoming, [], `${ids.join("\n")}\n`, maxBytes);
  }

  private async pack(incoming: string, options: readonly string[], input: string, maxBytes: number): Promise<number> {
    const base = path.join(this.folder, `new-${randomUUID()}`);
    const made = await runGit({ gitDir: this.gitDir, objectDirectory: incoming, alternates: [this.objectDirectory], args: ["pack-objects", ...options, "-q", base], input });
    const pack = `pack-${made.stdout.toString("latin1").trim()}`;
    const packFile = `${path.dirname(base)}/${path.basename(base)}-${pack.slice("pack-".length)}.pack`;
    const indexFile = packFile.replace(/\.pack$/, ".idx");
    try {
      if ((await objectCount(packFile)) === 0) return 0;
      const bytes = (await stat(packFile)).size;
      if (bytes > maxBytes) throw new AppError("QUOTA_EXCEEDED", `The change adds ${bytes} bytes of new objects; the limit is ${maxBytes} (REPOSITORY_PERSIST_MAX_BYTES). Nothing was kept.`);
      await this.storePack(pack, packFile, indexFile, bytes);
      return bytes;
    } finally {
      await Promise.all([rm(packFile, { force: true }), rm(indexFile, { force: true })]);
    }
  }

  /** Keeps a pack the pack list names already (an import's) here, its files moved in: this replica need not fetch it. */
  async keep(pack: string, packFile: string, indexFile: string): Promise<void> {
    await this.install(pack, async (target, extension) => {
      await rename(extension === "pack" ? packFile : indexFile, target);
    });
  }

  /** Stores a pack made and indexed by the host (`packFile`, `indexFile`), adds it to the pack list and keeps it here. */
  async storePack(pack: string, packFile: string, indexFile: string, bytes: number): Promise<void> {
    await this.bucket.putPackFile(this.project, this.generation, pack, "pack", packFile);
    await this.bucket.putPackFile(this.project, this.generation, pack, "idx", indexFile);
    const list = await this.bucket.addPacks(this.project, this.generation, [{ name: pack, bytes }]);
    await this.keep(pack, packFile, indexFile);
    // in the background: the write is stored already, and a consolidation that fails leaves a long list only
    if (list.packs.length > this.maxPacks) {
      this.consolidating ??= this.consolidate()
        .catch(() => undefined)
        .finally(() => {
          this.consolidating = undefined;
        });
    }
  }

  /** Waits for a consolidation under way (tests, and a process that stops). */
  async settled(): Promise<void> {
    await this.consolidating;
  }

  /**
   * Makes every pack of the list but the largest (an import's) one pack (`git pack-objects --stdin-packs`), stores
   * it, puts it in their place in the pack list by compare-and-set, then removes them from the store. A replica
   * fetching one of them meanwhile finds it no longer listed and goes on (fetchMissing).
   */
  private async consolidate(): Promise<void> {
    await this.sync();
    const packs = (await this.bucket.packList(this.project, this.generation)).value?.packs ?? [];
    if (packs.length <= this.maxPacks) return;
    const largest = packs.reduce((best, pack) => (pack.bytes > best.bytes ? pack : best));
    const merged = packs.filter((pack) => pack.name !== largest.name && this.present.has(pack.name));
    const base = path.join(this.folder, `merge-${randomUUID()}`);
    const made = await runGit({ gitDir: this.gitDir, args: ["pack-objects", "--stdin-packs", "-q", base], input: `${merged.map((pack) => `${pack.name}.pack`).join("\n")}\n` });
    const pack = `pack-${made.stdout.toString("latin1").trim()}`;
    const packFile = `${base}-${pack.slice("pack-".length)}.pack`;
    const indexFile = packFile.replace(/\.pack$/, ".idx");
    try {
      const bytes = (await stat(packFile)).size;
      await this.bucket.putPackFile(this.project, this.generation, pack, "pack", packFile);
      await this.bucket.putPackFile(this.project, this.generation, pack, "idx", indexFile);
      await this.bucket.replacePacks(this.project, this.generation, new Set(merged.map((one) => one.name)), { name: pack, bytes });
      await this.install(pack, async (target, extension) => {
        await rename(extension === "pack" ? packFile : indexFile, target);
      });
    } finally {
      await Promise.all([rm(packFile, { force: true }), rm(indexFile, { force: true })]);
    }
    await Promise.all(merged.map((one) => this.bucket.removePack(this.project, this.generation, one.name)));
  }

  /** Stops the object readers. */
  close(): void {
    this.reader.close();
    this.sizes.close();
  }

  private get packFolder(): string {
    return path.join(this.gitDir, "objects", "pack");
  }

  private async found(id: string, reader: ObjectReader): Promise<GitObject | undefined> {
    this.readAt = Date.now();
    const object = await reader.read(id);
    if (object) return object;
    await this.sync();
    return reader.read(id);
  }

  private async fetchMissing(): Promise<void> {
    const list: PackList = (await this.bucket.packList(this.project, this.generation)).value ?? { packs: [] };
    for (const pack of list.packs) {
      if (this.present.has(pack.name)) continue;
      try {
        await this.install(pack.name, (target, extension) => this.bucket.getPackFile(this.project, this.generation, pack.name, extension, target));
      } catch (error) {
        // made one with others since the list was read: the merged pack is fetched on the next sync
        const now = (await this.bucket.packList(this.project, this.generation)).value?.packs ?? [];
        if (now.some((one) => one.name === pack.name)) throw error;
        return this.fetchMissing();
      }
    }
  }

  /** Puts a pack's two files in place, the pack first: git takes a pack once its index is there. */
  private async install(pack: string, fill: (target: string, extension: "pack" | "idx") => Promise<void>): Promise<void> {
    if (this.present.has(pack)) return;
    await mkdir(this.packFolder, { recursive: true });
    for (const extension of ["pack", "idx"] as const) {
      const temporary = path.join(this.folder, `fetch-${randomUUID()}.${extension}`);
      try {
        await fill(temporary, extension);
        await rename(temporary, path.join(this.packFolder, `${pack}.${extension}`));
      } finally {
        await rm(temporary, { force: true });
      }
    }
    this.present.add(pack);
  }
}

/** The number of objects a pack file says it holds (its header: `PACK`, version, count). */
async function objectCount(packFile: string): Promise<number> {
  const handle = await open(packFile, "r");
  try {
    const header = Buffer.alloc(12);
    await handle.read(header, 0, 12, 0);
    return header.readUInt32BE(8);
  } finally {
    await handle.close();
  }
}

function missing(id: string): never {
  throw new AppError("INTERNAL", `An object of the repository is missing: ${id}`);
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}
