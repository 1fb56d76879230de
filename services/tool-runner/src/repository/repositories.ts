import { randomBytes, randomUUID } from "node:crypto";
import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { AppError, type Logger } from "@agent-orchestrator/shared/runtime";
import type { RepositoryView } from "@agent-orchestrator/shared/wire";
import { LRUCache } from "lru-cache";
import { runGit } from "../git/git-command.js";
import { CacheFolder } from "./cache-folder.js";
import { bundleFile, importBundle, type BundleSource } from "./bundle-import.js";
import type { ImportedPack } from "./imported-pack.js";
import { LocalRepository } from "./local-repository.js";
import { RepositoryCache, projectKey, type CacheLimits } from "./repository-cache.js";
import { cloneRemote, type CloneSettings, type CloneSource } from "./remote-clone.js";
import { repositoryExists, type RepositoryBucket } from "./repository-bucket.js";
import type { RepositoryRecord } from "./repository-values.js";
import type { FileStore } from "../store/file-store.js";
import { TreeReader } from "./tree-reader.js";

/** A project's repository as one call uses it. */
export interface AttachedRepository {
  project: string;
  record: RepositoryRecord;
  local: LocalRepository;
  reader: TreeReader;
  bucket: RepositoryBucket;
}

/** The settings of repositories in a tool-runner's configuration (docs/repositories.md "Limits"). */
export interface RepositorySettings extends CloneSettings, CacheLimits {
  /** where this process keeps its cache: a folder of its own is made in it */
  cacheFolder: string;
  persistMaxBytes: number;
  leaseMs: number;
  /** packs a pack list holds before the small ones are made one (local-repository.ts `packListLimit`) */
  maxPacks?: number;
}

// projects whose objects and readers a process keeps at once
const maxProjects = 64;

/** Where a project's index is marked with its repository (the file store's `markRepository`). */
export type IndexMarks = Pick<FileStore, "markRepository">;

/**
 * Projects' git repositories (docs/repositories.md): attaching one from a bundle or a remote, showing it,
 * detaching it, and each attached repository's objects on this process's disk (a cache any replica makes
 * again). The record in KV decides whether a project has a repository, read on every call that finds the
 * project's index marked, so a detach on one replica is seen by all at the next call. The mark goes on before
 * the record can be seen and comes off after it is gone: an index that says "none" is never wrong.
 */
export class Repositories {
  private readonly locals = new LRUCache<string, { local: LocalRepository; reader: TreeReader }>({
    max: maxProjects,
    dispose: (value) => value.local.close(),
  });

  /** the bound on this process's disk: objects and checkouts beyond it are removed, least recently used first */
  readonly cache: RepositoryCache;
  private readonly folder: string;

  private constructor(
    readonly bucket: RepositoryBucket,
    readonly settings: RepositorySettings,
    private readonly ownFolder: CacheFolder,
    private readonly marks: IndexMarks,
    private readonly logger: Logger,
  ) {
    this.folder = ownFolder.folder;
    this.cache = new RepositoryCache(settings, logger, {
      removed: (key) => this.locals.delete(key),
      readAt: (key) => this.locals.peek(key)?.local.readAt ?? 0,
    });
  }

  /**
   * Makes this process's cache folder in `settings.cacheFolder`, and removes those dead predecessors left there;
   * `marks` are the projects' indexes an attach and a detach mark.
   */
  static async open(bucket: RepositoryBucket, settings: RepositorySettings, marks: IndexMarks, logger: Logger): Promise<Repositories> {
    return new Repositories(bucket, settings, await CacheFolder.claim(settings.cacheFolder, logger), marks, logger);
  }

  /** The project's repository, or undefined when it has none. */
  async attached(project: string): Promise<AttachedRepository | undefined> {
    const { value: record } = await this.bucket.record(project);
    if (!record) return undefined;
    const key = projectKey({ project, generation: record.generation });
    const folder = path.join(this.folder, key);
    await this.cache.useProject(key, folder);
    let known = this.locals.get(key);
    if (!known) {
      const local = await LocalRepository.open(folder, this.bucket, project, record.generation, this.settings.maxPacks);
      known = { local, reader: new TreeReader(local) };
      this.locals.set(key, known);
    }
    return { project, record, bucket: this.bucket, ...known };
  }

  /** The repository as clients see it, or null. */
  async view(project: string): Promise<RepositoryView | null> {
    const attached = await this.attached(project);
    if (!attached) return null;
    const { record, bucket } = attached;
    const [refs, trees] = await Promise.all([bucket.refs(project, record.generation), bucket.treeStates(project, record.generation)]);
    const allRefs = refs.value?.refs ?? [];
    const branches = allRefs.filter((ref) => ref.name.startsWith("refs/heads/")).map((ref) => ({ name: ref.name.slice("refs/heads/".length), head: ref.id }));
    const workingTrees = await Promise.all(
      trees.map(async (state) => {
        const headTree = await attached.reader.commitTree(state.head);
        return { branch: state.branch, head: state.head, clean: state.files === headTree && state.index === headTree, updated_at: state.updated_at };
      }),
    );
    return {
      default_branch: record.default_branch,
      remote: record.remote === null ? null : { url: record.remote.url, ...(record.remote.branch === undefined ? {} : { branch: record.remote.branch }) },
      has_credential: record.has_credential,
      created_at: record.created_at,
      created_by: record.created_by,
      branches: branches.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
      tags: allRefs.filter((ref) => ref.name.startsWith("refs/tags/")).length,
      working_trees: workingTrees,
    };
  }

  /** Attaches a bundle (a file on this process's disk, or one read as it comes: a staged upload) as the project's repository. */
  attachBundle(project: string, bundle: string | BundleSource, user: string): Promise<RepositoryView> {
    return this.attach(project, user, async (gitDir) => ({
      imported: await importBundle(typeof bundle === "string" ? await bundleFile(bundle) : bundle, gitDir, this.settings),
      remote: null,
    }));
  }

  /** Attaches a clone of `source` as the project's repository; its credential is kept apart. */
  attachClone(project: string, source: CloneSource, user: string): Promise<RepositoryView> {
    return this.attach(project, user, async (gitDir) => {
      const { imported, url } = await cloneRemote(source, gitDir, this.settings);
      const remote = { url, ...(source.branch === undefined ? {} : { branch: source.branch }), ...(source.username === undefined ? {} : { username: source.username }) };
      return { imported, remote, ...(source.credential === undefined ? {} : { credential: source.credential }) };
    });
  }

  /**
   * Detaches the project's repository: the record goes, then the index's mark of its generation (one another
   * attach made since stays), then everything of its generation. NOT_FOUND when it has none.
   */
  async detach(project: string): Promise<void> {
    const { value: record, revision } = await this.bucket.record(project);
    if (!record) throw new AppError("NOT_FOUND", "The project has no repository");
    if (!(await this.bucket.removeRecord(project, revision))) throw new AppError("BUSY", "The repository is being attached or detached by someone else; try again");
    // a mark left on only costs each call the bucket's "none"
    await this.marks.markRepository(project, (index) => (index.repository === record.generation ? null : undefined)).catch((error: unknown) => {
      this.logger.warn({ err: error, project_id: project }, "a detached repository's mark stayed on the project's index");
    });
    await this.bucket.purge(project, record.generation).catch((error: unknown) => {
      this.logger.warn({ err: error, project_id: project }, "a detached repository's objects were not all removed");
    });
    // other replicas' copies go with their budget: nothing uses them again
    await this.cache.forget(projectKey({ project, generation: record.generation }));
  }

  /** Removes this process's cache. */
  async close(): Promise<void> {
    await this.cache.close();
    this.locals.clear();
    await this.ownFolder.close();
  }

  private async attach(
    project: string,
    user: string,
    bring: (gitDir: string) => Promise<{ imported: ImportedPack; remote: RepositoryRecord["remote"]; credential?: string }>,
  ): Promise<RepositoryView> {
    if ((await this.bucket.record(project)).value) throw repositoryExists();
    const work = path.join(this.folder, `import-${randomUUID()}`);
    const gitDir = path.join(work, "repo.git");
    await mkdir(work, { recursive: true });
    const generation = randomBytes(8).toString("hex");
    try {
      await runGit({ gitDir, args: ["init", "--bare", "-q"] });
      const { imported, remote, credential } = await bring(gitDir);
      const { bucket } = this;
      await bucket.putPackFile(project, generation, imported.pack, "pack", imported.packFile);
      await bucket.putPackFile(project, generation, imported.pack, "idx", imported.indexFile);
      await bucket.addPacks(project, generation, [{ name: imported.pack, bytes: imported.bytes }]);
      await bucket.changeRefs(project, generation, () => ({ refs: imported.refs.map(({ name, id }) => ({ name, id })) }));
      if (credential !== undefined) await bucket.putCredential(project, generation, credential);
      const record: RepositoryRecord = {
        generation,
        default_branch: imported.defaultBranch,
        remote,
        has_credential: credential !== undefined,
        created_at: new Date().toISOString(),
        created_by: user,
      };
      // marked first: a call that can see the record finds the index marked (an attach that fails leaves a mark
      // that only costs the bucket's answer)
      await this.marks.markRepository(project, () => generation);
      try {
        await bucket.createRecord(project, record);
      } catch (error) {
        await bucket.purge(project, generation).catch(() => undefined);
        throw error;
      }
      // this replica's cache starts with the pack: the first command here does not fetch what it just stored
      const attached = await this.attached(project);
      if (attached?.record.generation === generation) await attached.local.keep(imported.pack, imported.packFile, imported.indexFile);
      return (await this.view(project)) ?? repositoryGone();
    } catch (error) {
      if (!AppError.is(error)) this.logger.error({ err: error, project_id: project }, "a repository could not be attached");
      throw error;
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }
}

function repositoryGone(): never {
  throw new AppError("NOT_FOUND", "The repository was detached meanwhile");
}
