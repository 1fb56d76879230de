import { context, propagation, trace, type Context, type Span, type TextMapGetter, type TextMapSetter } from "@opentelemetry/api";
import { headers as natsHeaders, type MsgHdrs } from "nats";
import { tracingActive } from "./tracer.js";

const setter: TextMapSetter<MsgHdrs> = {
  set: (carrier, key, value) => carrier.set(key, value),
};

const getter: TextMapGetter<MsgHdrs | undefined> = {
  keys: (carrier) => carrier?.keys() ?? [],
  // nats.js answers "" for a missing header; the propagators expect undefined
  get: (carrier, key) => carrier?.get(key) || undefined,
};

/**
 * Adds the W3C trace context (`traceparent`, `tracestate`) to NATS message headers: `span`'s, else the
 * current one; to `target` when given, else to new headers. Returns `target` unchanged (possibly
 * undefined) when tracing is off or there is no span to carry, so an untraced message has no headers.
 */
export function withTraceHeaders(target?: MsgHdrs, span?: Span): MsgHdrs | undefined {
  if (!tracingActive()) return target;
  const carrier = target ?? natsHeaders();
  propagation.inject(span ? trace.setSpan(context.active(), span) : context.active(), carrier, setter);
  return target ?? (carrier.keys().length > 0 ? carrier : undefined);
}

/** The trace context a NATS message carries, as the parent of the spans that handle it (the current context when it carries none or tracing is off). */
export function traceContextOf(headers: MsgHdrs | undefined): Context {
  if (!tracingActive() || !headers) return context.active();
  return propagation.extract(context.active(), headers, getter);
}

/** Publish options carrying the current trace context: `{}` when there is none, so untraced publishes stay as they were. */
export function traceHeadersOption(): { headers?: MsgHdrs } {
  const headers = withTraceHeaders();
  return headers ? { headers } : {};
}
