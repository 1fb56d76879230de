import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { connect, type NatsConnection } from "nats";
import { inject } from "vitest";
import { createLogger } from "@agent-orchestrator/shared/runtime";
import { Repositories, RepositoryBucket, WorkingTrees, type RepositorySettings, type WorkingTreeLimits } from "../repository/index.js";
import { FileStore } from "../store/file-store.js";
import { fixtureQuota } from "./file-store-fixture.js";

/** Settings no test reaches unless it sets its own. */
export const fixtureRepositorySettings: Omit<RepositorySettings, "cacheFolder"> & WorkingTreeLimits = {
  maxBytes: 1 << 30,
  maxFiles: 100_000,
  maxRefs: 1000,
  persistMaxBytes: 64 << 20,
  leaseMs: 60_000,
  checkouts: 8,
  cacheMaxBytes: 1 << 30,
  timeoutMs: 60_000,
  remoteHosts: [],
  allowHttp: true,
};

/** One tool-runner's view of the test buckets: its repositories and working trees, with a cache folder of its own. */
export interface RepositoryReplica {
  repositories: Repositories;
  trees: WorkingTrees;
}

/** Repositories on the test NATS server (buckets named after a fresh prefix), and how to remove them. */
export interface TestRepositories extends RepositoryReplica {
  connection: NatsConnection;
  /** the file store on the same prefix, whose project indexes an attach marks */
  files: FileStore;
  prefix: string;
  /** another replica on the same buckets, with a cache of its own */
  replica(): Promise<RepositoryReplica>;
  /** a project of its own (a fresh id) with the repository of `bundle` attached by alice */
  attached(bundle: string): Promise<string>;
  close(): Promise<void>;
}

export async function openTestRepositories(settings: Partial<typeof fixtureRepositorySettings> = {}): Promise<TestRepositories> {
  const connection = await connect({ servers: inject("natsUrl") });
  const lead = `rp${randomUUID().slice(0, 8)}`;
  const cacheFolder = await mkdtemp(path.join(tmpdir(), "ao-repositories-test-"));
  const all = { ...fixtureRepositorySettings, ...settings, cacheFolder };
  const logger = createLogger("repository-test", "silent");
  const replicas: Repositories[] = [];
  const files = await FileStore.open(connection.jetstream(), {
    flush: () => connection.flush(),
    subjectPrefix: `${lead}.`,
    replicas: 1,
    cacheBytes: 16 << 20,
    quotas: { project: fixtureQuota, session: fixtureQuota },
    maxIndexBytes: 1 << 20,
  });
  const open = async (): Promise<RepositoryReplica> => {
    const bucket = await RepositoryBucket.open(connection.jetstream(), { subjectPrefix: `${lead}.`, replicas: 1, flush: () => connection.flush() });
    const repositories = await Repositories.open(bucket, all, files, logger);
    replicas.push(repositories);
    return { repositories, trees: new WorkingTrees(repositories, all, logger) };
  };
  const first = await open();
  return {
    ...first,
    connection,
    files,
    prefix: `${lead}.`,
    replica: open,
    async attached(bundle) {
      const project = `p${randomUUID().slice(0, 8)}`;
      await first.repositories.attachBundle(project, bundle, "alice");
      return project;
    },
    async close() {
      await Promise.all(replicas.map((repositories) => repositories.close()));
      const manager = await connection.jetstreamManager();
      const streams = [`KV_${lead}_repositories`, `KV_${lead}_repository_credentials`, `OBJ_${lead}_repository_packs`, `KV_${lead}_file_index`, `KV_${lead}_file_revisions`, `OBJ_${lead}_file_contents`];
      await Promise.all(streams.map((stream) => manager.streams.delete(stream).catch(() => undefined)));
      await connection.drain();
      await rm(cacheFolder, { recursive: true, force: true });
    },
  };
}

/** A file of a test repository: text, or a symbolic link to `link`. */
export type RepositoryFile = string | { link: string };

/**
 * Runs the test's own git (trusted: the test made the repository) with a fixed author and date; `environment` adds
 * variables, such as the GIT_AUTHOR_* a working tree's commits are made with (withWorkingTree's `CommitPlace`).
 */
export function testGit(cwd: string, args: readonly string[], input?: string, environment: Readonly<Record<string, string>> = {}): string {
  return execFileSync("git", ["-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "init.defaultBranch=main", ...args], {
    cwd,
    encoding: "utf8",
    ...(input === undefined ? {} : { input }),
    env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: cwd, GIT_CONFIG_NOSYSTEM: "1", GIT_AUTHOR_DATE: "2026-01-01T00:00:00Z", GIT_COMMITTER_DATE: "2026-01-01T00:00:00Z", ...environment },
  });
}

/**
 * A git repository in a temporary folder with one commit of `files` on `main` (and each of `branches` as another
 * branch with its own files on top), and its bundle (`git bundle create --all`).
 */
export async function makeTestRepository(files: Record<string, RepositoryFile>, branches: Record<string, Record<string, RepositoryFile>> = {}): Promise<{ folder: string; bundle: string; remove(): Promise<void> }> {
  const root = await mkdtemp(path.join(tmpdir(), "ao-test-repo-"));
  const folder = path.join(root, "work");
  await mkdir(folder);
  testGit(folder, ["init", "-q"]);
  const put = async (entries: Record<string, RepositoryFile>) => {
    for (const [name, content] of Object.entries(entries)) {
      const file = path.join(folder, name);
      await mkdir(path.dirname(file), { recursive: true });
      if (typeof content === "string") await writeFile(file, content);
      else await symlink(content.link, file);
    }
    testGit(folder, ["add", "-A"]);
  };
  await put(files);
  testGit(folder, ["commit", "-q", "-m", "first"]);
  for (const [branch, extra] of Object.entries(branches)) {
    testGit(folder, ["checkout", "-q", "-b", branch, "main"]);
    await put(extra);
    testGit(folder, ["commit", "-q", "-m", `on ${branch}`]);
  }
  testGit(folder, ["checkout", "-q", "main"]);
  const bundle = path.join(root, "repo.bundle");
  testGit(folder, ["bundle", "create", "-q", bundle, "--all"]);
  return { folder, bundle, remove: () => rm(root, { recursive: true, force: true }) };
}
