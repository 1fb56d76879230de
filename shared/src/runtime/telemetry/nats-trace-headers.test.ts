import { context, trace } from "@opentelemetry/api";
import { connect, headers as natsHeaders, type NatsConnection } from "nats";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { z } from "zod";
import { addJsonEndpoint } from "../json-endpoint.js";
import { createLogger } from "../logger.js";
import { requestJson } from "../nats-request.js";
import { startInMemoryTracing } from "../../testing/in-memory-tracing.js";
import { traceContextOf, withTraceHeaders } from "./nats-trace-headers.js";
import { inSpan } from "./spans.js";
import { setTracingActive, tracer } from "./tracer.js";

let tracing: ReturnType<typeof startInMemoryTracing>;
beforeEach(() => {
  tracing = startInMemoryTracing();
});
afterEach(() => tracing.stop());
const finished = () => tracing.exporter.getFinishedSpans();

describe("withTraceHeaders", () => {
  it("carries the current span as a W3C traceparent", async () => {
    await inSpan("sender", {}, async (span) => {
      const { traceId, spanId } = span.spanContext();
      expect(withTraceHeaders()?.get("traceparent")).toBe(`00-${traceId}-${spanId}-01`);
    });
  });

  it("carries the given span rather than the current one, and keeps the headers already set", async () => {
    const span = tracer.startSpan("client");
    const target = natsHeaders();
    target.set("x-request-id", "r1");
    const result = withTraceHeaders(target, span);
    expect(result).toBe(target);
    expect(result?.get("x-request-id")).toBe("r1");
    expect(result?.get("traceparent")).toContain(span.spanContext().spanId);
    span.end();
  });

  it("adds no headers outside any span", () => {
    expect(withTraceHeaders()).toBeUndefined();
  });

  it("adds nothing with tracing off, even inside a span", () => {
    const span = tracer.startSpan("not exported");
    setTracingActive(false);
    const target = natsHeaders();
    expect(withTraceHeaders(undefined, span)).toBeUndefined();
    expect(withTraceHeaders(target, span)?.has("traceparent")).toBe(false);
  });
});

describe("traceContextOf", () => {
  it("makes the receiver's span a child of the sender's", async () => {
    const carried = await inSpan("sender", {}, async () => withTraceHeaders());
    const sender = finished().find((span) => span.name === "sender");
    await inSpan("receiver", { parent: traceContextOf(carried) }, async () => {});
    const receiver = finished().find((span) => span.name === "receiver");
    expect(receiver?.spanContext().traceId).toBe(sender?.spanContext().traceId);
    expect(receiver?.parentSpanContext?.spanId).toBe(sender?.spanContext().spanId);
    expect(receiver?.parentSpanContext?.isRemote).toBe(true);
  });

  it("starts a new trace for a message without headers or with a malformed traceparent", () => {
    const malformed = natsHeaders();
    malformed.set("traceparent", "00-not-a-trace-01");
    for (const headers of [undefined, natsHeaders(), malformed]) {
      expect(trace.getSpanContext(traceContextOf(headers))).toBeUndefined();
    }
  });

  it("is the current context with tracing off", () => {
    setTracingActive(false);
    const carrying = natsHeaders();
    carrying.set("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
    expect(traceContextOf(carrying)).toBe(context.active());
  });
});

describe("through a real NATS server", () => {
  let connection: NatsConnection;
  beforeAll(async () => {
    connection = await connect({ servers: inject("natsUrl") });
  });
  afterAll(() => connection.drain());

  it("joins requestJson's client span and addJsonEndpoint's server span in one trace", async () => {
    const subject = `t${Math.random().toString(36).slice(2, 8)}.trace.echo`;
    const service = await connection.services.add({ name: "trace-test", version: "0.0.1" });
    addJsonEndpoint(service, "echo", subject, z.object({ n: z.number() }), async (body) => ({ n: body.n }), createLogger("test", "silent"));
    try {
      await inSpan("turn", {}, () => requestJson(connection, subject, { n: 1 }, z.object({ n: z.number() }), { timeoutMs: 2_000 }));
      const spans = finished();
      const turn = spans.find((span) => span.name === "turn");
      const client = spans.find((span) => span.name === `send ${subject}`);
      const server = spans.find((span) => span.name === "process echo");
      expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(1);
      expect(client?.parentSpanContext?.spanId).toBe(turn?.spanContext().spanId);
      expect(server?.parentSpanContext?.spanId).toBe(client?.spanContext().spanId);
      expect(server?.attributes["messaging.destination.name"]).toBe(subject);
    } finally {
      await service.stop();
    }
  });
});
