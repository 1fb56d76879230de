import { context, SpanKind, trace } from "@opentelemetry/api";
import { markFailed, startSpan, tracingActive } from "@agent-orchestrator/shared/runtime";
import type { SessionStore } from "./session-store.js";

/**
 * The session store with each call as a span (`session_store get`, `… update`), so the KV operations of
 * a turn show in its trace. A proxy, so the store itself stays free of tracing; with tracing off each call
 * goes straight to the store.
 */
export function tracedSessionStore(store: SessionStore): SessionStore {
  return new Proxy(store, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== "function" || typeof key !== "string" || !tracingActive()) return value;
      const method = value as (...parameters: unknown[]) => unknown;
      return (...args: unknown[]) => {
        const span = startSpan(`session_store ${key}`, { kind: SpanKind.CLIENT, attributes: { "db.system.name": "nats_kv", "db.operation.name": key } });
        const fail = (error: unknown) => {
          markFailed(span, error);
          span.end();
          return error;
        };
        let result: unknown;
        try {
          result = context.with(trace.setSpan(context.active(), span), () => method.apply(target, args));
        } catch (error) {
          throw fail(error);
        }
        if (!(result instanceof Promise)) {
          span.end();
          return result;
        }
        return result.then(
          (settled: unknown) => {
            span.end();
            return settled;
          },
          (error: unknown) => Promise.reject(fail(error)),
        );
      };
    },
  });
}
