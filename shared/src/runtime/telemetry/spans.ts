import { context, INVALID_SPAN_CONTEXT, SpanStatusCode, trace, type Context, type Span, type SpanOptions } from "@opentelemetry/api";
import { AppError } from "../app-error.js";
import { tracer, tracingActive } from "./tracer.js";

/** What a helper hands out with tracing off: records nothing, costs nothing. */
export const noSpan: Span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/** Starts a span (not made current) under `parent`, or the current context; `noSpan` with tracing off. */
export function startSpan(name: string, options: SpanOptions = {}, parent?: Context): Span {
  if (!tracingActive()) return noSpan;
  return tracer.startSpan(name, options, parent ?? context.active());
}

/**
 * Runs `work` with a new span as the current one, so the NATS messages and log lines made inside carry
 * it; a throw marks the span failed. The span ends when `work` settles.
 */
export async function inSpan<T>(name: string, options: SpanOptions & { parent?: Context }, work: (span: Span) => Promise<T>): Promise<T> {
  if (!tracingActive()) return work(noSpan);
  const { parent, ...spanOptions } = options;
  const span = tracer.startSpan(name, spanOptions, parent ?? context.active());
  try {
    return await context.with(trace.setSpan(parent ?? context.active(), span), () => work(span));
  } catch (error) {
    markFailed(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/**
 * Marks a span failed with the error's code (an AppError's closed code, else the error's class name)
 * and returns the error. Only the code: a message or stack could hold a path or a file's text.
 */
export function markFailed<E>(span: Span, error: E): E {
  const type = errorType(error);
  span.setAttribute("error.type", type);
  span.setStatus({ code: SpanStatusCode.ERROR, message: type });
  return error;
}

/** Marks the current span failed, if there is one (see `markFailed`). */
export function markCurrentSpanFailed(error: unknown): void {
  const span = tracingActive() ? trace.getActiveSpan() : undefined;
  if (span) markFailed(span, error);
}

/** The code to record for an error: an AppError's code, else the error's class name. */
export const errorType = (error: unknown): string => (AppError.is(error) ? error.code : error instanceof Error ? error.name : "Error");
