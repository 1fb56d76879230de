/**
 * `@agent-orchestrator/shared/runtime`: what a Node process uses and never sends: the logger, config from the
 * environment, the NATS connection, request/endpoint helpers and the retry and failure classification (`nats/`),
 * `AppError`, JSON safety, path containment, queues, concurrency, the service lifecycle, audit publishing and
 * telemetry (`telemetry/`). Not for browsers.
 */
export { AppError, toErrorBody } from "./app-error.js";
export { AuditPublisher, auditActorToken } from "./audit/audit-publisher.js";
export type { AuditEntry } from "./audit/audit-publisher.js";
export { baseEnvSchema, envInt, loadEnv, parseEnv, removedEnv } from "./env-config.js";
export { addJsonEndpoint } from "./json-endpoint.js";
export { KeyedBatches } from "./keyed-batches.js";
export { KeyedQueue } from "./keyed-queue.js";
export { isCasConflict } from "./kv-conflict.js";
export { createLogger } from "./logger.js";
export type { Logger } from "./logger.js";
export { mapWithConcurrency } from "./map-with-concurrency.js";
export { connectNats } from "./nats-connection.js";
export { decodeJson, encodeJson, requestJson } from "./nats-request.js";
export { natsFailureKind } from "./nats/nats-failure.js";
export type { NatsFailureKind } from "./nats/nats-failure.js";
export { natsRetryDelay, retryNats, retryWhileLeaderless } from "./nats/nats-retry.js";
export type { NatsRetryPolicy } from "./nats/nats-retry.js";
export {
  fileStoreElectionWaitMs,
  leaderElectionWaitMs,
  runEventStoreBudgetMs,
  runEventWatchHoldMs,
  runLimitCeilingMs,
  scriptTimeoutDefaultMs,
  toolReplyWindowMs,
  toolTimeoutDefaultMs,
} from "./nats/nats-wait-budgets.js";
export { putObjectPaced, readObjectChunks } from "./nats/object-streams.js";
export { jetStreamOf } from "./nats/kept-jetstream.js";
export { endSubscription } from "./nats/end-subscription.js";
export { queueRunRequest } from "./nats/queue-run-request.js";
export { isInside, relativeInside } from "./path-containment.js";
export { watchRegistryChanges } from "./registry-change-watch.js";
export { parseJson } from "./safe-json.js";
export { runService, type ServiceRun } from "./service-lifecycle.js";
export { startMetricsServer } from "./telemetry/metrics-server.js";
export { natsAttributes } from "./telemetry/nats-spans.js";
export { traceContextOf, traceHeadersOption } from "./telemetry/nats-trace-headers.js";
export { errorType, inSpan, markFailed, startSpan } from "./telemetry/spans.js";
export { telemetryEnvSchema } from "./telemetry/telemetry-env.js";
export { setTracingActive, tracer, tracingActive } from "./telemetry/tracer.js";
export { startTracing } from "./telemetry/tracing-setup.js";
export { utf8PrefixEnd } from "./utf8-prefix.js";
export { firstIssue } from "./zod-issue.js";
