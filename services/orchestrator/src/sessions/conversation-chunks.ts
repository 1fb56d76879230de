import { randomUUID } from "node:crypto";
import type { KV } from "nats";
import { z } from "zod";
import { AppError, decodeJson, encodeJson, mapWithConcurrency } from "@agent-orchestrator/shared/runtime";
import { ConversationMessage, type ConversationBatch } from "@agent-orchestrator/shared/wire";
import { readThroughFailover, writeThroughFailover } from "../nats/kv-failover.js";
import { chunkKey } from "./session-keys.js";

/** Bytes of one conversation chunk: well under any NATS server's max_payload (1 MiB by default). */
const conversationChunkBytes = 256 * 1024;

const ConversationBatchMessages = z.array(ConversationMessage);
/** Chunks read or written at once: a long chat's conversation in a few round trips, not one per chunk. */
const chunksAtOnce = 32;

/**
 * A session's conversation in the `sessions` bucket: one batch per save, each batch the JSON of the messages it
 * adds cut into chunk keys (`conversation.<session>.<batch>.<n>`), so no value grows with the conversation. A
 * batch is written under an id no other writer uses, before the head that names it: a save that loses its head's
 * compare-and-set leaves a batch no head names, which it removes.
 */
export class ConversationChunks {
  constructor(private readonly kv: KV) {}

  /** Writes `messages` as a new batch of `sessionId`, pushing each chunk's key onto `written` as it goes (to remove them on failure). */
  async write(sessionId: string, messages: readonly ConversationMessage[], written: string[]): Promise<ConversationBatch> {
    const id = randomUUID();
    const bytes = encodeJson(messages);
    const chunks = Math.max(1, Math.ceil(bytes.byteLength / conversationChunkBytes));
    // the batch is named by no head until it is whole: its chunks go in any order
    await mapWithConcurrency(Array.from({ length: chunks }, (_unused, index) => index), chunksAtOnce, async (index) => {
      const key = chunkKey(sessionId, id, index);
      written.push(key);
      const chunk = bytes.subarray(index * conversationChunkBytes, (index + 1) * conversationChunkBytes);
      await writeThroughFailover(this.kv, key, chunk, () => this.kv.put(key, chunk));
    });
    return { id, chunks, messages: messages.length };
  }

  /** The messages of `batches`, in order; INTERNAL when a chunk a head names is missing. */
  async read(sessionId: string, batches: readonly ConversationBatch[]): Promise<ConversationMessage[]> {
    const keys = batches.map((batch) => Array.from({ length: batch.chunks }, (_unused, index) => chunkKey(sessionId, batch.id, index)));
    const values = await mapWithConcurrency(keys.flat(), chunksAtOnce, async (key) => {
      const entry = await readThroughFailover(() => this.kv.get(key));
      if (!entry || entry.operation !== "PUT") throw new AppError("INTERNAL", `Part of session ${sessionId}'s conversation is missing`);
      return entry.value;
    });
    let next = 0;
    return keys.flatMap((batch) => decodeJson(Buffer.concat(values.slice(next, (next += batch.length))), ConversationBatchMessages));
  }

  /** Every chunk key of `batches`. */
  keysOf(sessionId: string, batches: readonly ConversationBatch[]): string[] {
    return batches.flatMap((batch) => Array.from({ length: batch.chunks }, (_unused, index) => chunkKey(sessionId, batch.id, index)));
  }

  /** Removes chunks no head names (a save that failed); a removal that fails leaves only an unreachable key. */
  async discard(keys: readonly string[]): Promise<void> {
    await Promise.allSettled(keys.map((key) => this.kv.purge(key)));
  }
}
