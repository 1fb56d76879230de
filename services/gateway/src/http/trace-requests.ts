import { context, propagation, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { NextFunction, Request, Response } from "express";
import { tracer, tracingActive } from "@agent-orchestrator/shared/runtime";

const untraced = new Set(["/healthz", "/metrics"]);

/**
 * Makes every HTTP request (but health checks and metric scrapes) a server span: it continues the caller's trace when the request carries a
 * W3C `traceparent`, and returns its own `traceparent` in the response so a client can find its trace.
 * The rest of the chain runs in the span's context (through the body parser too, even for a body that
 * arrives in pieces: trace-requests.test.ts), so the turn's publish and the log lines join the trace.
 * Only method, route and status are recorded; never the path's values, the body or headers.
 */
export function traceRequests(request: Request, response: Response, next: NextFunction): void {
  // probes and scrapes every few seconds would bury the turns' traces
  if (!tracingActive() || untraced.has(request.path)) return next();
  const parent = propagation.extract(context.active(), request.headers);
  const span = tracer.startSpan(request.method, { kind: SpanKind.SERVER, attributes: { "http.request.method": request.method } }, parent);
  const active = trace.setSpan(parent, span);
  const carrier: Record<string, string> = {};
  propagation.inject(active, carrier);
  if (carrier["traceparent"]) response.setHeader("traceparent", carrier["traceparent"]);
  response.once("close", () => {
    const route = (request.route as { path?: string } | undefined)?.path;
    const routeName = route === undefined ? "unmatched" : `${request.baseUrl}${String(route)}`;
    span.updateName(`${request.method} ${routeName}`);
    span.setAttributes({ "http.route": routeName, "http.response.status_code": response.statusCode });
    if (response.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  });
  context.with(active, next);
}
