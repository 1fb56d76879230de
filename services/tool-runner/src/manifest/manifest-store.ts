import { lstat, readFile } from "node:fs/promises";
import path from "node:path";
import {
  parseJson,
  SessionManifest,
  type Logger,
  type ManifestFile,
  type ManifestScriptRun,
  type SessionManifestUpdate,
} from "@agent-orchestrator/shared";
import { errnoCode } from "../sandbox/sandbox-error.js";
import { writeFileAtomically, type Sandbox } from "../sandbox/index.js";
import { removeSessionFile } from "../sandbox/file-remover.js";
import { withFileLock, type FileLockOptions } from "./file-lock.js";
import { quotaVerdict, sessionUsage, usageAfter, type SessionQuota } from "./session-quota.js";

/** The manifest's name in the session folder; the sandbox refuses model writes to `manifest.json*`. */
export const manifestFileName = "manifest.json";
const lockFileName = `${manifestFileName}.lock`;

/** A file a script run created or changed, by its virtual path. */
export type ScriptFile = Pick<ManifestFile, "path" | "size"> & { created: boolean };

/** How a script run fared against the session quota: over it or not, and the created files removed. */
export interface ScriptQuotaOutcome {
  overQuota: boolean;
  removed: string[];
  quota: SessionQuota;
}

/** What a manifest created by a file write (before the orchestrator described the session) starts with. */
export type ManifestSeed = Pick<SessionManifest, "agent" | "bundle" | "owner" | "status">;

/**
 * One change, run under the lock. It may refuse by throwing, and then must not have changed the manifest:
 * the other changes of its batch are still written.
 */
type Change = (manifest: SessionManifest, folder: string) => void | Promise<void>;

interface PendingChange {
  seed: ManifestSeed;
  change: Change;
  resolve: (manifest: SessionManifest) => void;
  reject: (error: unknown) => void;
}

/** What a manifest store needs: the sandbox (for the session folder), the session quota and a logger. */
export interface ManifestStoreOptions {
  sandbox: Sandbox;
  /** checked on every file written, against the files the manifest lists */
  quota: SessionQuota;
  logger: Logger;
  lock?: FileLockOptions;
}

/**
 * Keeps `<session>/manifest.json` (docs/design.md "Sessions"). Every change is a read-modify-write under a lock
 * file, so no update is lost between processes sharing the output volume; within a process, changes that
 * arrive while a write is under way are applied together in the next one, so 200 parallel saves cost a few
 * lock turns, not 200. The manifest's file list is the source of truth of a session's quota: a file is
 * admitted, written and listed in one lock turn, so replicas sharing the volume cannot both take the last room.
 */
export class ManifestStore {
  private readonly pending = new Map<string, PendingChange[]>();
  private readonly flushing = new Set<string>();

  constructor(private readonly options: ManifestStoreOptions) {}

  /** Creates the session folder and manifest if missing, then sets the session's fields. */
  update(update: SessionManifestUpdate): Promise<SessionManifest> {
    const seed = { agent: update.agent, bundle: update.bundle, owner: update.owner, status: update.status };
    return this.apply(update.session_id, seed, (manifest) => {
      Object.assign(manifest, seed);
    });
  }

  /** Adds a written file, or updates its entry when the path was written before. */
  async recordFile(sessionId: string, seed: ManifestSeed, file: ManifestFile): Promise<void> {
    await this.apply(sessionId, seed, (manifest) => upsertFile(manifest, file));
  }

  /**
   * Writes a file within the session quota and lists it, in one lock turn: `write` runs only when the file
   * (`path` replacing any file of that path, `size`) keeps the session within its quota, else QUOTA_EXCEEDED
   * is thrown and nothing is written.
   */
  async writeFile(sessionId: string, seed: ManifestSeed, file: Pick<ManifestFile, "path" | "size">, write: () => Promise<unknown>): Promise<ManifestFile> {
    const listed: ManifestFile = { path: file.path, size: file.size, written_at: new Date().toISOString() };
    await this.apply(sessionId, seed, async (manifest) => {
      const refusal = quotaVerdict(sessionUsage(manifest.files), usageAfter(manifest.files, [file]), this.options.quota);
      if (refusal) throw refusal;
      await write();
      upsertFile(manifest, listed);
    });
    return listed;
  }

  /** Creates the session's manifest when it has none yet; an existing one is left as it is. */
  async ensure(sessionId: string, seed: ManifestSeed): Promise<void> {
    if ((await this.read(sessionId)) === undefined) await this.apply(sessionId, seed, () => undefined);
  }

  /**
   * Adds a script run and the files it wrote, in one write. A run that leaves the session over its quota
   * loses the files it created (removed from the folder, not listed) and keeps the ones it changed, which
   * existed before.
   */
  async recordScript(
    sessionId: string,
    seed: ManifestSeed,
    run: ManifestScriptRun,
    files: readonly ScriptFile[],
    deleted: readonly string[] = [],
  ): Promise<ScriptQuotaOutcome> {
    const removed: string[] = [];
    let overQuota = false;
    await this.apply(sessionId, seed, async (manifest, folder) => {
      // the files the script deleted are gone from the folder already
      if (deleted.length > 0) manifest.files = manifest.files.filter((file) => !deleted.includes(file.path));
      overQuota = quotaVerdict(sessionUsage(manifest.files), usageAfter(manifest.files, files), this.options.quota) !== undefined;
      const kept = overQuota ? files.filter((file) => !file.created) : files;
      // removals first: if one fails, the manifest is left as it was and what was removed is not listed
      for (const file of files) {
        if (kept.includes(file)) continue;
        await removeSessionFile(folder, file.path);
        removed.push(file.path);
      }
      (manifest.scripts ??= []).push(run);
      for (const file of kept) upsertFile(manifest, { path: file.path, size: file.size, written_at: run.at });
    });
    return { overQuota, removed, quota: this.options.quota };
  }

  /** Adds a workflow started in the session. */
  async recordWorkflow(sessionId: string, seed: ManifestSeed, workflow: SessionManifest["workflows"][number]): Promise<void> {
    await this.apply(sessionId, seed, (manifest) => {
      manifest.workflows.push(workflow);
    });
  }

  /** The session's manifest, or undefined when the session has none. */
  async read(sessionId: string): Promise<SessionManifest | undefined> {
    try {
      return await this.load(await this.options.sandbox.sessionFolder(sessionId, { create: false }), sessionId);
    } catch (error) {
      if (errnoCode(error) === "ENOENT") return undefined;
      throw error;
    }
  }

  private apply(sessionId: string, seed: ManifestSeed, change: Change): Promise<SessionManifest> {
    return new Promise((resolve, reject) => {
      const queue = this.pending.get(sessionId) ?? [];
      queue.push({ seed, change, resolve, reject });
      this.pending.set(sessionId, queue);
      if (!this.flushing.has(sessionId)) void this.flush(sessionId);
    });
  }

  private async flush(sessionId: string): Promise<void> {
    this.flushing.add(sessionId);
    try {
      for (let batch = this.take(sessionId); batch.length > 0; batch = this.take(sessionId)) {
        try {
          const { manifest, refused } = await this.write(sessionId, batch);
          for (const item of batch) {
            if (refused.has(item)) item.reject(refused.get(item));
            else item.resolve(manifest);
          }
        } catch (error) {
          for (const item of batch) item.reject(error);
        }
      }
    } finally {
      this.flushing.delete(sessionId);
    }
  }

  private take(sessionId: string): PendingChange[] {
    const batch = this.pending.get(sessionId) ?? [];
    this.pending.delete(sessionId);
    return batch;
  }

  private async write(sessionId: string, batch: readonly PendingChange[]): Promise<{ manifest: SessionManifest; refused: Map<PendingChange, unknown> }> {
    const folder = await this.options.sandbox.sessionFolder(sessionId);
    return withFileLock(
      path.join(folder, lockFileName),
      async () => {
        const now = new Date().toISOString();
        const existing = await this.load(folder, sessionId);
        const manifest = existing ?? fresh(sessionId, batch[0]?.seed, now);
        const refused = new Map<PendingChange, unknown>();
        for (const item of batch) {
          try {
            await item.change(manifest, folder);
          } catch (error) {
            refused.set(item, error);
          }
        }
        manifest.updated_at = now;
        // a new manifest that lists nothing (a first turn's start) loses nothing in a crash: no fsync to wait for
        const durable = existing !== undefined || listsSomething(manifest);
        await writeFileAtomically(folder, manifestFileName, Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`), {}, { durable });
        return { manifest, refused };
      },
      this.options.lock,
    );
  }

  private async load(folder: string, sessionId: string): Promise<SessionManifest | undefined> {
    const file = path.join(folder, manifestFileName);
    try {
      // the system is the only writer here; a link or anything but a file means tampering
      if (!(await lstat(file)).isFile()) throw new Error("manifest.json is not a regular file");
      const parsed = parseJson(await readFile(file, "utf8"));
      const manifest = parsed.ok ? SessionManifest.safeParse(parsed.value) : undefined;
      if (manifest?.success) return manifest.data;
      throw new Error("manifest.json does not match the schema");
    } catch (error) {
      if (errnoCode(error) === "ENOENT") return undefined;
      this.options.logger.error({ err: error, session_id: sessionId }, "session manifest unreadable; starting a new one");
      return undefined;
    }
  }
}

function upsertFile(manifest: SessionManifest, file: ManifestFile): void {
  const index = manifest.files.findIndex((entry) => entry.path === file.path);
  if (index === -1) manifest.files.push(file);
  else manifest.files[index] = file;
}

const listsSomething = (manifest: SessionManifest): boolean =>
  manifest.files.length + manifest.workflows.length + (manifest.scripts?.length ?? 0) > 0;

function fresh(sessionId: string, seed: ManifestSeed | undefined, now: string): SessionManifest {
  return {
    id: sessionId,
    agent: seed?.agent ?? "",
    bundle: seed?.bundle ?? "",
    owner: seed?.owner ?? "",
    status: seed?.status ?? "running",
    created_at: now,
    updated_at: now,
    workflows: [],
    files: [],
  };
}
