import { trace } from "@opentelemetry/api";

/** The one tracer of the system's own spans (a proxy until a provider is registered). */
export const tracer = trace.getTracer("agent-orchestrator");

let active = false;

/**
 * Whether this process exports traces. Helpers check it first, so with tracing off no span, header or
 * context object is made at all.
 */
export const tracingActive = (): boolean => active;

/** Set by `startTracing` when a provider has been registered (and by tests that register their own). */
export function setTracingActive(value: boolean): void {
  active = value;
}
