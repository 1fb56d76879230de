import { SpanKind } from "@opentelemetry/api";
import type { JsMsg } from "nats";
import { inSpan, natsAttributes, startSpan, traceContextOf } from "@agent-orchestrator/shared/runtime";
import { type RunStartRequest } from "@agent-orchestrator/shared/wire";
import { orchestratorMetrics } from "../orchestrator-metrics.js";

/**
 * Runs a turn taken from the work queue inside its trace: the one the gateway's (or parent turn's)
 * publish carried. The time the request waited in the stream becomes a `queue_wait` span and a metric
 * (first delivery only: a redelivery's wait is the dead replica's ack wait), and the turn is a consumer
 * span that is current while it runs, so its registry, KV, model and tool spans and its log lines join it.
 */
export function inQueuedTurnSpan(message: JsMsg, request: RunStartRequest, attempt: number, work: () => Promise<void>): Promise<void> {
  const parent = traceContextOf(message.headers);
  // the stream's timestamp is the server's clock; on one host it is ours, elsewhere NTP keeps it close
  const queuedAt = message.info.timestampNanos / 1e6;
  if (attempt === 1) orchestratorMetrics.queueWait.observe(Math.max(0, Date.now() - queuedAt) / 1000);
  // the span ends at Date.now() (whole ms): a start in the same millisecond must not pass its end
  const startTime = Math.min(queuedAt, Date.now());
  startSpan("queue_wait", { kind: SpanKind.CONSUMER, startTime, attributes: natsAttributes(message.subject, "receive") }, parent).end();
  const kind = request.parent ? "subagent" : "turn";
  return inSpan(
    `agent ${kind}`,
    {
      kind: SpanKind.CONSUMER,
      parent,
      attributes: {
        ...natsAttributes(message.subject, "process"),
        "gen_ai.agent.id": request.agent_id,
        "session.id": request.session_id,
        "ao.run.id": request.run_id,
        "ao.run.attempt": attempt,
      },
    },
    work,
  );
}
