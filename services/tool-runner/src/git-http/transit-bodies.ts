import { randomUUID } from "node:crypto";
import { createReadStream } from "node:fs";
import { open } from "node:fs/promises";
import { Readable } from "node:stream";
import { AppError, putObjectPaced } from "@agent-orchestrator/shared/runtime";
import { jetStreamNames, type GitBody } from "@agent-orchestrator/shared/wire";
import type { JetStreamClient, ObjectStore } from "nats";
import type { StagedUploads } from "../store/staged-uploads.js";

/** A request body on this replica: in memory when it came in the message, else in a local file. */
export interface ReceivedBody {
  size: number;
  /** its first `maxBytes` bytes (all of it when shorter) */
  head(maxBytes: number): Promise<Buffer>;
  /** its bytes from `offset` on */
  from(offset: number): Readable;
  discard(): Promise<void>;
}

/**
 * The bodies of git's requests and responses between the gateway and the tool-runner (docs/repositories.md
 * "Plain git over HTTP"): a small one travels in the NATS message itself, a large one as an object of the uploads
 * store (`file_uploads`, docs/uploads.md "How an upload travels"), streamed in and out in chunks and removed by the
 * side that reads it (one nobody read expires with the store's lifetime). So neither side holds a clone's pack in
 * memory, and no message exceeds the server's max_payload.
 */
export class TransitBodies {
  private constructor(
    private readonly staged: StagedUploads,
    private readonly store: ObjectStore,
    private readonly flush: () => Promise<void>,
    /** the largest body sent in a reply, from the server's max_payload */
    private readonly inlineMax: () => number,
  ) {}

  static async open(js: JetStreamClient, staged: StagedUploads, settings: { subjectPrefix: string; flush: () => Promise<void>; inlineMax: () => number }): Promise<TransitBodies> {
    // the store is made (with its lifetime) by StagedUploads.open; bound here
    const store = await js.views.os(jetStreamNames(settings.subjectPrefix).fileUploadsStore);
    return new TransitBodies(staged, store, settings.flush, settings.inlineMax);
  }

  /** A request body: the message's bytes, or the staged object taken onto this replica's disk and removed from the store. */
  async receive(body: GitBody): Promise<ReceivedBody> {
    if ("inline" in body) {
      const bytes = Buffer.from(body.inline, "base64");
      return { size: bytes.length, head: async (maxBytes) => bytes.subarray(0, maxBytes), from: (offset) => Readable.from([bytes.subarray(offset)]), discard: async () => undefined };
    }
    try {
      const received = await this.staged.receive(body.staged);
      return {
        size: received.size,
        head: (maxBytes) => readHead(received.file, Math.min(maxBytes, received.size)),
        from: (offset) => createReadStream(received.file, { start: offset }),
        discard: received.discard,
      };
    } finally {
      await this.staged.remove(body.staged);
    }
  }

  /** A response body from `output`: in the reply when it ends within the inline limit, else staged for the gateway to stream. */
  async send(output: AsyncIterable<Buffer>): Promise<GitBody> {
    const iterator = output[Symbol.asyncIterator]();
    const limit = this.inlineMax();
    const start: Buffer[] = [];
    let bytes = 0;
    for (;;) {
      const next = await iterator.next();
      if (next.done === true) return { inline: Buffer.concat(start).toString("base64") };
      start.push(next.value);
      bytes += next.value.length;
      if (bytes > limit) break;
    }
    const name = randomUUID().replaceAll("-", "");
    const rest = async function* () {
      yield* start;
      for (let next = await iterator.next(); next.done !== true; next = await iterator.next()) yield next.value;
    };
    try {
      const info = await putObjectPaced(this.flush, this.store, name, rest());
      return { staged: name, bytes: info.size };
    } catch (error) {
      throw new AppError("SERVICE_UNAVAILABLE", "The response could not be stored for the gateway; try again shortly", { cause: error });
    }
  }

  /** Removes a staged response nobody will read (its git failed). */
  async forget(body: GitBody): Promise<void> {
    if ("staged" in body) await this.store.delete(body.staged).catch(() => undefined);
  }
}

async function readHead(file: string, bytes: number): Promise<Buffer> {
  const handle = await open(file, "r");
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}
