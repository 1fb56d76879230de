import { trace } from "@opentelemetry/api";
import { tracingActive } from "./tracer.js";

const none = Object.freeze({});

/**
 * A pino mixin: `trace_id` and `span_id` of the current span on every line logged inside one, so an
 * operator goes from a log line to its trace and back. Nothing with tracing off.
 */
export function traceLogFields(): { trace_id?: string; span_id?: string } {
  if (!tracingActive()) return none;
  const span = trace.getActiveSpan();
  if (!span) return none;
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}
