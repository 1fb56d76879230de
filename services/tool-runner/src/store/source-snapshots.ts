import { AppError, isCasConflict, parseJson, retryNats } from "@agent-orchestrator/shared/runtime";
import { SourceManifest, SourceSnapshotInfo, type FileRevision } from "@agent-orchestrator/shared/wire";
import { LRUCache } from "lru-cache";
import type { KV } from "nats";
import { z } from "zod";
import type { FileStore } from "./file-store.js";
import { notTaken, repeatable } from "./store-retries.js";

/** A project's code snapshot as the view uses it: its files as revisions of the snapshot, and its folders. */
export interface LoadedSource {
  info: SourceSnapshotInfo;
  files: ReadonlyMap<string, FileRevision>;
  /** every folder that holds a snapshot file, at any depth (`src`, `src/lib`) */
  folders: ReadonlySet<string>;
}

/** The KV value under `src.<project>`: the snapshot's revision counter and the snapshot (null once removed). */
const SourcePointer = z.object({ revision: z.number().int().nonnegative(), snapshot: SourceSnapshotInfo.nullable() });
type SourcePointer = z.infer<typeof SourcePointer>;

const encoder = new TextEncoder();

/**
 * Each project's read-only code snapshot (docs/uploads.md "A code snapshot"): an archive of a code base whose
 * files the model lists and reads under `{project-root}/` but never writes. A snapshot is replaced whole: its
 * file list is one manifest object in the contents store (a code base may have far more files than one KV
 * value can list), and a pointer to it in the file index bucket under `src.<project>` moves by
 * compare-and-set, so readers see the old snapshot or the new one, never a mix.
 */
export class SourceSnapshots {
  private readonly loaded = new LRUCache<string, { kvRevision: number; source: LoadedSource | undefined }>({ max: 64 });

  /** `pointers`: the file index bucket, which holds a pointer per project beside the spaces' indexes */
  constructor(
    private readonly pointers: KV,
    private readonly files: FileStore,
  ) {}

  /** The project's snapshot now, or undefined when it has none. */
  async current(projectId: string): Promise<LoadedSource | undefined> {
    const key = pointerKey(projectId);
    const entry = await retryNats(() => this.pointers.get(key), repeatable);
    const kvRevision = entry?.revision ?? 0;
    const known = this.loaded.get(key);
    if (known && known.kvRevision === kvRevision) return known.source;
    const pointer = entry && entry.operation === "PUT" ? parsePointer(entry.string()) : undefined;
    const source = pointer?.snapshot ? await this.load(pointer.snapshot) : undefined;
    this.loaded.set(key, { kvRevision, source });
    return source;
  }

  /** Makes `manifest` (every content already stored) the project's snapshot, replacing the one before whole. */
  async replace(projectId: string, manifest: SourceManifest, uploadedBy: string, now: Date): Promise<SourceSnapshotInfo> {
    const manifestSha = await this.files.storeBytes(encoder.encode(JSON.stringify(manifest)));
    const bytes = manifest.files.reduce((sum, file) => sum + file.size, 0);
    return this.move(projectId, (revision) => ({
      revision,
      manifest: manifestSha,
      files: manifest.files.length,
      bytes,
      uploaded_by: uploadedBy,
      uploaded_at: now.toISOString(),
    }));
  }

  /** Removes the project's snapshot; NOT_FOUND when it has none. */
  async remove(projectId: string): Promise<void> {
    if (!(await this.current(projectId))) throw new AppError("NOT_FOUND", "The project has no code snapshot");
    await this.move(projectId, () => null);
  }

  /** Forgets the project's snapshot pointer whole (a deleted project). */
  async purge(projectId: string): Promise<void> {
    await this.pointers.purge(pointerKey(projectId)).catch(() => undefined);
  }

  /** Moves the pointer by compare-and-set to what `next` makes of the next revision number. */
  private async move<T extends SourceSnapshotInfo | null>(projectId: string, next: (revision: number) => T): Promise<T> {
    const key = pointerKey(projectId);
    for (let round = 0; round < 16; round += 1) {
      const entry = await retryNats(() => this.pointers.get(key), repeatable);
      const before = entry && entry.operation === "PUT" ? parsePointer(entry.string()) : undefined;
      const snapshot = next((before?.revision ?? 0) + 1);
      const value: SourcePointer = { revision: snapshot?.revision ?? before?.revision ?? 0, snapshot };
      try {
        const bytes = encoder.encode(JSON.stringify(value));
        await retryNats(() => (entry ? this.pointers.update(key, bytes, entry.revision) : this.pointers.create(key, bytes)), notTaken);
        return snapshot;
      } catch (error) {
        if (!isCasConflict(error)) throw new AppError("WRITE_FAILED", "The code snapshot could not be stored; nothing was changed. Try again shortly.", { cause: error });
      }
    }
    throw new AppError("BUSY", "The code snapshot is being replaced by someone else; try again");
  }

  private async load(info: SourceSnapshotInfo): Promise<LoadedSource> {
    const parsed = parseJson(new TextDecoder().decode(await this.files.content(info.manifest)));
    const manifest = SourceManifest.parse(parsed.ok ? parsed.value : undefined);
    const files = new Map<string, FileRevision>();
    const folders = new Set<string>();
    const author = { user: info.uploaded_by };
    for (const file of manifest.files) {
      files.set(file.path, { path: file.path, revision: info.revision, size: file.size, sha256: file.sha256, author, updated_at: info.uploaded_at });
      for (let end = file.path.indexOf("/"); end !== -1; end = file.path.indexOf("/", end + 1)) folders.add(file.path.slice(0, end));
    }
    return { info, files, folders };
  }
}

function pointerKey(projectId: string): string {
  return `src.p.${projectId}`;
}

function parsePointer(text: string): SourcePointer | undefined {
  const parsed = parseJson(text);
  const pointer = SourcePointer.safeParse(parsed.ok ? parsed.value : undefined);
  return pointer.success ? pointer.data : undefined;
}

/**
 * Why a project file at `path` may not be written while `source` is the snapshot, or undefined when it may:
 * a snapshot file is read-only, and so is a new file in one of its folders, except in BMAD's output places
 * (`_bmad-output/`, the knowledge folder `docs/`), where agents save their work beside the code's own docs.
 */
export async function sourceWriteVerdict(source: LoadedSource | undefined, path: string, outputPlaces: () => Promise<readonly string[]>): Promise<string | undefined> {
  if (!source) return undefined;
  if (source.files.has(path)) return "a file of the read-only code snapshot";
  let folder: string | undefined;
  for (let end = path.indexOf("/"); end !== -1 && folder === undefined; end = path.indexOf("/", end + 1)) {
    if (source.folders.has(path.slice(0, end))) folder = path.slice(0, end);
  }
  if (folder === undefined) return undefined;
  // the output places are worked out only for a path that lands in one of the snapshot's folders
  const places = await outputPlaces();
  if (places.some((place) => path === place || path.startsWith(`${place}/`))) return undefined;
  return `in ${folder}/, a folder of the read-only code snapshot`;
}
