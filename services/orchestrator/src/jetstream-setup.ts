import { AckPolicy, DiscardPolicy, nanos, RetentionPolicy, StorageType, type JetStreamManager } from "nats";
import { subjects } from "@agent-orchestrator/shared";
import type { OrchestratorConfig } from "./config.js";

export interface RunStreamNames {
  runRequests: string;
  runEvents: string;
  runRequestsConsumer: string;
}

/**
 * Creates (or updates) the two streams of a turn: the work queue of turn requests, shared by every
 * orchestrator through one durable consumer, and the bounded-age log of turn events for re-attach.
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
    discard: DiscardPolicy.Old,
  }, config.JS_REPLICAS);
  await upsertStream(manager, {
    name: names.runEvents,
    subjects: [subjectPrefix + subjects.runEventsAll],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    max_age: nanos(config.EVENTS_MAX_AGE_MS),
    discard: DiscardPolicy.Old,
  }, config.JS_REPLICAS);
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
async function upsertStream(manager: JetStreamManager, settings: StreamSettings, replicas: number): Promise<void> {
  try {
    await manager.streams.info(settings.name);
    await manager.streams.update(settings.name, settings);
  } catch {
    await manager.streams.add({ ...settings, num_replicas: replicas });
  }
}
