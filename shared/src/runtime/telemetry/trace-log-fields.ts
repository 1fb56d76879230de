import { trace } from "@opentelemetry/api";
import { tracingActive } from "./tracer.js";

/**
 * A pino mixin: `trace_id` and `span_id` of the current span on every line logged inside one, so an
 * operator goes from a log line to its trace and back. Nothing with tracing off.
 */
export function traceLogFields(): { trace_id?: string; span_id?: string } {
  // a new object each time: pino merges the line's own fields into it
  if (!tracingActive()) return {};
  const span = trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}
