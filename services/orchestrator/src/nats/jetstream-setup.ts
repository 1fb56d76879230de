import { AckPolicy, DiscardPolicy, nanos, RetentionPolicy, StorageType, type JetStreamManager } from "nats";
import { AppError, natsFailureKind } from "@agent-orchestrator/shared/runtime";
import { maxUserMessageChars, subjects } from "@agent-orchestrator/shared/wire";
import type { OrchestratorConfig } from "../config.js";

export interface RunStreamNames {
  runRequests: string;
  runEvents: string;
  runRequestsConsumer: string;
}

/**
 * The largest turn request: a user message of `maxUserMessageChars` characters, each escaped to at most six
 * bytes, and the request's other fields.
 */
const maxRunRequestBytes = 6 * maxUserMessageChars + 64 * 1024;

/**
 * Creates (or updates) the two streams of a turn: the work queue of turn requests, shared by every
 * orchestrator through one durable consumer, and the log of turn events for re-attach. Both are bounded in
 * bytes (docs/nats.md "JetStream"): at RUN_REQUESTS_MAX_BYTES a new turn is refused (discard new: the
 * gateway answers SERVICE_UNAVAILABLE, queued turns are never dropped unseen); at EVENTS_MAX_BYTES the
 * oldest events are dropped (discard old: a running turn's events are always stored, only old turns lose
 * their replay). JetStream reserves a stream's byte limit in its store when the stream is made, so a limit
 * the server cannot hold stops the orchestrator at start with a message naming the setting.
 */
export async function ensureRunStreams(
  manager: JetStreamManager,
  names: RunStreamNames,
  config: OrchestratorConfig,
  subjectPrefix = "",
): Promise<void> {
  await upsertStream(manager, {
    name: names.runRequests,
    subjects: [subjectPrefix + subjects.runRequestAll],
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
    duplicate_window: nanos(120_000),
    max_age: nanos(3_600_000),
    max_bytes: config.RUN_REQUESTS_MAX_BYTES,
    max_msg_size: maxRunRequestBytes,
    discard: DiscardPolicy.New,
  }, config.JS_REPLICAS, "RUN_REQUESTS_MAX_BYTES");
  await upsertStream(manager, {
    name: names.runEvents,
    subjects: [subjectPrefix + subjects.runEventsAll],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    max_age: nanos(config.EVENTS_MAX_AGE_MS),
    max_bytes: config.EVENTS_MAX_BYTES,
    discard: DiscardPolicy.Old,
  }, config.JS_REPLICAS, "EVENTS_MAX_BYTES");
  const consumer = {
    durable_name: names.runRequestsConsumer,
    ack_policy: AckPolicy.Explicit,
    ack_wait: nanos(config.RUN_ACK_WAIT_MS),
    max_deliver: config.RUN_MAX_DELIVER,
    max_ack_pending: 10_000,
  };
  try {
    await manager.consumers.info(names.runRequests, names.runRequestsConsumer);
    await manager.consumers.update(names.runRequests, names.runRequestsConsumer, consumer);
  } catch {
    await manager.consumers.add(names.runRequests, consumer);
  }
}

type StreamSettings = Parameters<JetStreamManager["streams"]["add"]>[0] & { name: string };

/** An existing stream keeps its replica count here; `raiseReplicas` only ever raises it. */
async function upsertStream(manager: JetStreamManager, settings: StreamSettings, replicas: number, limitSetting: string): Promise<void> {
  const exists = await manager.streams.info(settings.name).then(
    () => true,
    () => false,
  );
  try {
    if (exists) await manager.streams.update(settings.name, settings);
    else await manager.streams.add({ ...settings, num_replicas: replicas });
  } catch (error) {
    // "insufficient storage resources": the server's JetStream store cannot reserve the stream's byte limit
    if (natsFailureKind(error) !== "storage-full") throw error;
    throw new AppError(
      "SERVICE_UNAVAILABLE",
      `JetStream cannot reserve ${settings.max_bytes} bytes for ${settings.name}: lower ${limitSetting} or give nats-server a larger store (max_file_store)`,
      { cause: error },
    );
  }
}
