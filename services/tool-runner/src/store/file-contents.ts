import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { AppError, putObjectPaced, retryNats } from "@agent-orchestrator/shared/runtime";
import type { ObjectInfo, ObjectStore } from "nats";
import type { ContentCache } from "./content-cache.js";
import type { StoredContent } from "./file-change.js";
import { storeFailure } from "./store-failure.js";
import { repeatable } from "./store-retries.js";

/**
 * The files' contents: objects in an Object Store named by their sha256, so equal files are stored once, and
 * a content kept in this process's cache is never stale (a file's new revision has another sha256).
 */
export class FileContents {
  /** `flush` flushes the connection the store is on: a large content is sent in windows (putObjectPaced) */
  constructor(
    private readonly objects: ObjectStore,
    private readonly cache: ContentCache,
    private readonly flush: () => Promise<void>,
  ) {}

  /** The content named `sha256`, from the cache or the object store. */
  async read(sha256: string): Promise<Uint8Array> {
    const cached = this.cache.get(sha256);
    if (cached) return cached;
    const content = await this.objects.getBlob(sha256);
    if (content === null) throw new AppError("INTERNAL", "A file's content is missing from the store");
    this.cache.set(sha256, content);
    return content;
  }

  /** Stores a content a file is written with, unless this replica knows it is there, and keeps it cached; returns its sha256. */
  async store(content: Uint8Array): Promise<string> {
    const sha256 = sha256Of(content);
    if (this.cache.has(sha256)) return sha256;
    await this.put(sha256, () => true, () => this.objects.putBlob({ name: sha256 }, content));
    this.cache.set(sha256, content);
    return sha256;
  }

  /**
   * Stores the file `file` on local disk, whose bytes hash to `sha256`, as a content (an upload the caller
   * hashed while receiving it), streamed in windows so a large one never sits in memory. A content the store
   * already holds is not sent again. Returns what a FileChange names it by.
   */
  async storeFile(file: string, sha256: string, size: number): Promise<StoredContent> {
    await this.put(sha256, (known) => known.size === size, () => putObjectPaced(this.flush, this.objects, sha256, createReadStream(file)));
    return { sha256, size };
  }

  /** Stores bytes as a content (not through the cache: a code snapshot's files are many and mostly unread); returns its sha256. */
  async storeBytes(content: Uint8Array): Promise<string> {
    const sha256 = sha256Of(content);
    await this.put(sha256, () => true, () => this.objects.putBlob({ name: sha256 }, content));
    return sha256;
  }

  /**
   * Puts the content named `sha256` with `put` unless the store holds it already (and `same` agrees), waiting
   * out an election: a repeat of a put that timed out but landed stores the same bytes again.
   */
  private async put(sha256: string, same: (known: ObjectInfo) => boolean, put: () => Promise<unknown>): Promise<void> {
    try {
      await retryNats(async () => {
        const known = await this.objects.info(sha256);
        if (!known || known.deleted || !same(known)) await put();
      }, repeatable);
    } catch (error) {
      throw storeFailure(error);
    }
  }
}

function sha256Of(content: Uint8Array): string {
  return createHash("sha256").update(content).digest("hex");
}
