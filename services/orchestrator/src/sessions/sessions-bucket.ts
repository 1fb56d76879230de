import type { KV, NatsConnection } from "nats";
import { AppError, natsFailureKind } from "@agent-orchestrator/shared/runtime";

/**
 * Opens (or creates) the `sessions` bucket, bounded to `maxBytes` when given: a bucket made earlier gets the bound
 * by a stream update. A KV bucket discards new writes at its bound, never old values (that would lose parts of
 * conversations), so a full bucket refuses new sessions and new messages with QUOTA_EXCEEDED (`whileRoom`), while
 * a head's same-sized rewrite (a turn's status) still succeeds (docs/nats.md "JetStream").
 */
export async function openSessionsBucket(connection: NatsConnection, bucket: string, options: { maxBytes?: number } = {}): Promise<KV> {
  const { maxBytes } = options;
  const kv = await connection.jetstream().views.kv(bucket, { history: 1, ...(maxBytes ? { max_bytes: maxBytes } : {}) });
  if (maxBytes && (await kv.status()).max_bytes !== maxBytes) {
    await (await connection.jetstreamManager()).streams.update(`KV_${bucket}`, { max_bytes: maxBytes });
  }
  return kv;
}

/** A write the full bucket (or the server's full store) refused, as a clear error: only more room helps, so it is not retried. */
export const storeFull = (error: unknown): AppError =>
  new AppError(
    "QUOTA_EXCEEDED",
    "The session store is full (SESSIONS_BUCKET_MAX_BYTES), so this turn could not be saved; an operator must raise the limit or remove old sessions",
    { detail: { jetstream: String(error) } },
  );

/** Runs a write to the bucket, turning a refusal by the full bucket into QUOTA_EXCEEDED. */
export async function whileRoom<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    throw natsFailureKind(error) === "storage-full" ? storeFull(error) : error;
  }
}
