import { SpanKind, type Span } from "@opentelemetry/api";
import type { Msg } from "nats";
import { traceContextOf } from "./nats-trace-headers.js";
import { inSpan, noSpan, startSpan } from "./spans.js";
import { tracingActive } from "./tracer.js";

/** Messaging attributes of the OpenTelemetry semantic conventions for a NATS subject. */
export const natsAttributes = (subject: string, operation: "send" | "process" | "receive") => ({
  "messaging.system": "nats",
  "messaging.destination.name": subject,
  "messaging.operation.type": operation,
});

/** The client side of a request/reply or a publish: its context goes into the message's headers. */
export function startSendSpan(subject: string, kind: SpanKind.CLIENT | SpanKind.PRODUCER = SpanKind.CLIENT): Span {
  // checked here too, so an untraced request builds no name nor attributes
  if (!tracingActive()) return noSpan;
  return startSpan(`send ${subject}`, { kind, attributes: natsAttributes(subject, "send") });
}

/** Runs a Services endpoint's handler in a server span whose parent is the trace the request carries. */
export function inEndpointSpan<T>(message: Msg, endpoint: string, work: (span: Span) => Promise<T>): Promise<T> {
  if (!tracingActive()) return work(noSpan);
  return inSpan(
    `process ${endpoint}`,
    { kind: SpanKind.SERVER, parent: traceContextOf(message.headers), attributes: natsAttributes(message.subject, "process") },
    work,
  );
}
