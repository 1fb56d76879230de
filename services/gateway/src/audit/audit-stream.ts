import { DiscardPolicy, nanos, RetentionPolicy, StorageType, type JetStreamManager } from "nats";
import { AppError, natsFailureKind, retryWhileLeaderless } from "@agent-orchestrator/shared/runtime";
import { subjects } from "@agent-orchestrator/shared/wire";
import type { GatewayConfig } from "../config.js";

const dayMs = 24 * 3_600_000;

/**
 * Creates the `AUDIT` stream (docs/audit.md), or updates its retention: records are kept AUDIT_MAX_AGE_DAYS and
 * at most AUDIT_MAX_BYTES, the oldest dropped first (discard old), so recording never stops for a full stream.
 * A record's id is its message id, so a publish repeated after a timeout is stored once within two minutes.
 * An existing stream keeps its replica count. JetStream reserves the byte limit when the stream is made, so a
 * limit the server cannot hold stops the gateway at start with a message naming the setting.
 */
export async function ensureAuditStream(manager: JetStreamManager, name: string, config: Pick<GatewayConfig, "AUDIT_MAX_AGE_DAYS" | "AUDIT_MAX_BYTES" | "JS_REPLICAS">, subjectPrefix = ""): Promise<void> {
  const settings = {
    name,
    subjects: [subjectPrefix + subjects.auditAll],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    max_age: nanos(config.AUDIT_MAX_AGE_DAYS * dayMs),
    max_bytes: config.AUDIT_MAX_BYTES,
    discard: DiscardPolicy.Old,
    duplicate_window: nanos(120_000),
    allow_direct: true,
  };
  const exists = await retryWhileLeaderless(() => manager.streams.info(name)).then(
    () => true,
    () => false,
  );
  try {
    if (exists) await retryWhileLeaderless(() => manager.streams.update(name, settings));
    else await retryWhileLeaderless(() => manager.streams.add({ ...settings, num_replicas: config.JS_REPLICAS }));
  } catch (error) {
    if (natsFailureKind(error) !== "storage-full") throw error;
    throw new AppError("SERVICE_UNAVAILABLE", `JetStream cannot reserve ${config.AUDIT_MAX_BYTES} bytes for ${name}: lower AUDIT_MAX_BYTES or give nats-server a larger store (max_file_store)`, {
      cause: error,
    });
  }
}
