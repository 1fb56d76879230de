import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { trace } from "@opentelemetry/api";
import express from "express";
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished, vi } from "vitest";
import { startInMemoryTracing } from "@agent-orchestrator/shared/testing";
import { traceRequests } from "./trace-requests.js";

const clientTrace = "4bf92f3577b34da6a3ce929d0e0e4736";
let url: string;
/** the trace the response's `finish` listeners run in (the gateway's "request" log line is one) */
let finishedIn: string | undefined;
let close: () => void;
let tracing: ReturnType<typeof startInMemoryTracing> | undefined;
/** called when a request has reached the middleware after traceRequests (its first callbacks have run) */
let arrived: (() => void) | undefined;

beforeAll(async () => {
  const app = express();
  app.use(traceRequests, (_request, response, next) => {
    arrived?.();
    response.on("finish", () => {
      finishedIn = trace.getActiveSpan()?.spanContext().traceId;
    });
    next();
  }, express.json());
  // what a route sees as the current span after the body parser: where the turn's publish happens
  app.post("/api/echo", (_request, response) => {
    response.json({ traceId: trace.getActiveSpan()?.spanContext().traceId ?? null });
  });
  app.get("/healthz", (_request, response) => {
    response.json({ status: "ok" });
  });
  const server = app.listen(0, "127.0.0.1");
  await once(server, "listening");
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => server.close();
});
afterAll(() => close());
afterEach(() => tracing?.stop());

const post = (headers: Record<string, string> = {}) =>
  fetch(`${url}/api/echo`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify({ a: 1 }) });

describe("traceRequests", () => {
  it("continues the caller's traceparent past the body parser and answers with its own span in that trace", async () => {
    tracing = startInMemoryTracing();
    const response = await post({ traceparent: `00-${clientTrace}-00f067aa0ba902b7-01` });
    expect(await response.json()).toEqual({ traceId: clientTrace });
    const returned = response.headers.get("traceparent");
    expect(returned).toMatch(new RegExp(`^00-${clientTrace}-[0-9a-f]{16}-01$`));
    // the span ends when the response closes, which may be just after the client has it
    const spans = tracing.exporter;
    await vi.waitFor(() => expect(spans.getFinishedSpans()).toHaveLength(1));
    const [span] = spans.getFinishedSpans();
    expect(span).toMatchObject({ name: "POST /api/echo", attributes: { "http.route": "/api/echo", "http.response.status_code": 200 } });
    expect(returned).toContain(span?.spanContext().spanId);
  });

  it("keeps the trace for a body that arrives in pieces, after the request's first callbacks have run", async () => {
    tracing = startInMemoryTracing();
    const encoder = new TextEncoder();
    const started = new Promise<void>((resolve) => (arrived = resolve));
    onTestFinished(() => void (arrived = undefined));
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(encoder.encode('{"a":'));
        // the rest comes once the server has begun the request, before its body is whole
        await started;
        controller.enqueue(encoder.encode("1}"));
        controller.close();
      },
    });
    const response = await fetch(`${url}/api/echo`, {
      method: "POST",
      headers: { "content-type": "application/json", traceparent: `00-${clientTrace}-00f067aa0ba902b7-01` },
      body,
      duplex: "half",
    } as RequestInit);
    expect(await response.json()).toEqual({ traceId: clientTrace });
    await vi.waitFor(() => expect(finishedIn).toBe(clientTrace));
  });

  it("starts a new trace without a traceparent, and leaves health checks alone", async () => {
    tracing = startInMemoryTracing();
    const body = (await (await post()).json()) as { traceId: string };
    expect(body.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(body.traceId).not.toBe(clientTrace);
    expect((await fetch(`${url}/healthz`)).headers.get("traceparent")).toBeNull();
  });

  it("does nothing with tracing off", async () => {
    const response = await post({ traceparent: `00-${clientTrace}-00f067aa0ba902b7-01` });
    expect(await response.json()).toEqual({ traceId: null });
    expect(response.headers.get("traceparent")).toBeNull();
  });
});
