import { createHash } from "node:crypto";
import type { JetStreamManager, ObjectInfo, ObjectStore } from "nats";

/** Bytes published between two flushes of the connection by `putObjectPaced`. */
const defaultWindowBytes = 8 * 1024 * 1024;

/**
 * Stores `source` as the object `name`, with at most about `windowBytes` on their way to the server at any
 * time. nats.js 2.29's `ObjectStore.put` reads its stream as fast as it can and publishes every chunk at once,
 * so a large body read from a fast socket or disk would sit in the connection's outbound buffer whole; here
 * the stream it reads waits for `flush` (the connection's: the server has taken everything published
 * before it) every window.
 */
export async function putObjectPaced(
  flush: () => Promise<void>,
  store: ObjectStore,
  name: string,
  source: AsyncIterable<Uint8Array>,
  options: { windowBytes?: number } = {},
): Promise<ObjectInfo> {
  const windowBytes = options.windowBytes ?? defaultWindowBytes;
  const iterator = source[Symbol.asyncIterator]();
  let sinceFlush = 0;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (sinceFlush >= windowBytes) {
        await flush();
        sinceFlush = 0;
      }
      const next = await iterator.next();
      if (next.done === true) {
        controller.close();
        return;
      }
      sinceFlush += next.value.byteLength;
      controller.enqueue(next.value);
    },
    async cancel(reason) {
      await iterator.return?.(reason);
    },
  });
  return store.put({ name }, stream);
}

/** The direct get by next subject, as nats.js 2.29 has it (left out of the manager's interface). */
interface DirectGets {
  getMessage(stream: string, query: { seq: number; next_by_subj: string }): Promise<{ seq: number; data: Uint8Array }>;
}

/**
 * The chunks of object `info` of the Object Store `bucket`, one at a time as they are asked for. nats.js's
 * `get` pushes every chunk through an ordered consumer into a stream that does not wait for its reader, so a
 * slow reader (an HTTP client downloading) would hold the whole object in memory; here each chunk is fetched
 * by a direct get after the one before was taken. The content is checked against the object's SHA-256 digest.
 */
export async function* readObjectChunks(manager: JetStreamManager, bucket: string, info: ObjectInfo): AsyncGenerator<Uint8Array> {
  const direct = (manager as unknown as { direct: DirectGets }).direct;
  const stream = `OBJ_${bucket}`;
  const subject = `$O.${bucket}.C.${info.nuid}`;
  const hash = createHash("sha256");
  let seq = 1;
  let size = 0;
  for (let chunk = 0; chunk < info.chunks; chunk += 1) {
    const message = await direct.getMessage(stream, { seq, next_by_subj: subject });
    seq = message.seq + 1;
    size += message.data.byteLength;
    hash.update(message.data);
    yield message.data;
  }
  const digest = `SHA-256=${hash.digest("base64url")}`;
  if (size !== info.size || !sameDigest(digest, info.digest)) throw new Error(`object ${info.name} is corrupt: its chunks do not match its size and digest`);
}

/** nats.js writes the digest base64url with padding; other clients without: compare the bytes. */
function sameDigest(computed: string, recorded: string): boolean {
  const bytes = (text: string) => Buffer.from(text.replace(/^SHA-256=/, "").replace(/=+$/, ""), "base64url").toString("hex");
  return bytes(computed) === bytes(recorded);
}
