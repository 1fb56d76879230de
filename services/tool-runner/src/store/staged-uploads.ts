import { createHash, randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { AppError, readObjectChunks, retryNats, fileStoreElectionWaitMs } from "@agent-orchestrator/shared/runtime";
import { jetStreamNames } from "@agent-orchestrator/shared/wire";
import { nanos, type JetStreamClient, type JetStreamManager, type ObjectInfo, type ObjectStore } from "nats";

/** How long a staged upload the tool-runner never took is kept (a client gone mid-way, a tool-runner that stopped). */
export const stagedUploadLifetimeMs = 60 * 60 * 1000;

/** An upload taken onto this process's disk: where it is, its sha256 and size, its first bytes. */
export interface ReceivedUpload {
  file: string;
  sha256: string;
  size: number;
  /** the first bytes, to tell a document's format */
  head: Uint8Array;
  /** removes the local copy */
  discard(): Promise<void>;
}

/**
 * The uploads the gateway stages in the `file_uploads` Object Store (docs/uploads.md "How an upload
 * travels"): a request body streamed there under a fresh name, which the tool-runner takes onto its own disk
 * (hashing it on the way, to store it by content), then removes. The staging store is the only one the gateway
 * may write: what becomes a project's content is decided here. Leftovers expire after an hour.
 */
export class StagedUploads {
  private constructor(
    private readonly store: ObjectStore,
    private readonly manager: JetStreamManager,
    private readonly bucket: string,
    private readonly directory: string,
  ) {}

  /** Opens (and creates where missing) the staging store of `subjectPrefix`'s set. */
  static async open(js: JetStreamClient, settings: { subjectPrefix: string; replicas: number }): Promise<StagedUploads> {
    const bucket = jetStreamNames(settings.subjectPrefix).fileUploadsStore;
    const store = await js.views.os(bucket, { replicas: settings.replicas, ttl: nanos(stagedUploadLifetimeMs) });
    const directory = await mkdtemp(path.join(tmpdir(), "ao-uploads-"));
    return new StagedUploads(store, await js.jetstreamManager(), bucket, directory);
  }

  /** Takes the staged upload `name` onto local disk, hashing it; NOT_FOUND when it is not there (expired, taken). */
  async receive(name: string): Promise<ReceivedUpload> {
    const info = await this.info(name);
    const file = path.join(this.directory, randomUUID());
    const hash = createHash("sha256");
    const head: Uint8Array[] = [];
    let headBytes = 0;
    const chunks = readObjectChunks(this.manager, this.bucket, info);
    const discard = () => rm(file, { force: true });
    try {
      await pipeline(
        (async function* () {
          for await (const chunk of chunks) {
            hash.update(chunk);
            if (headBytes < 8192) {
              head.push(chunk.subarray(0, 8192 - headBytes));
              headBytes += Math.min(chunk.byteLength, 8192 - headBytes);
            }
            yield chunk;
          }
        })(),
        createWriteStream(file, { mode: 0o600 }),
      );
    } catch (error) {
      await discard();
      throw new AppError("WRITE_FAILED", "The upload could not be received; send it again", { cause: error });
    }
    return { file, sha256: hash.digest("hex"), size: info.size, head: Buffer.concat(head), discard };
  }

  /**
   * The staged upload `name` as it is read from the store, chunk by chunk at the reader's pace (a bundle goes
   * straight into git, never onto this disk whole); the chunks fail at the end when they do not match the stored
   * size and digest. NOT_FOUND when it is not there.
   */
  async stream(name: string): Promise<{ size: number; chunks: AsyncIterable<Uint8Array> }> {
    const info = await this.info(name);
    return { size: info.size, chunks: readObjectChunks(this.manager, this.bucket, info) };
  }

  /** Removes a staged upload (taken, refused or failed); a removal that fails is left to the store's lifetime. */
  async remove(name: string): Promise<void> {
    await this.store.delete(name).catch(() => undefined);
  }

  private async info(name: string): Promise<ObjectInfo> {
    const info = await retryNats(() => this.store.info(name), { retryOn: ["no-responders", "no-leader", "timeout"], budgetMs: fileStoreElectionWaitMs });
    if (!info || info.deleted) throw new AppError("NOT_FOUND", "The upload is no longer there; send it again");
    return info;
  }

  /** Removes this process's local copies folder. */
  async close(): Promise<void> {
    await rm(this.directory, { recursive: true, force: true });
  }
}
