import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { AppError } from "@agent-orchestrator/shared/runtime";
import { silenceLimitedFetch, withSilenceStop } from "./silence-limited-fetch.js";

const limits = { firstByteMs: 10_000, idleMs: 1_000 };
const bytes = new TextEncoder().encode("data: {}\n\n");

/** A server stand-in whose body the test writes piece by piece; `answer` sends the headers. */
function controllableFetch(status = 200) {
  let body!: ReadableStreamDefaultController<Uint8Array>;
  let answer!: () => void;
  const headersSent = new Promise<void>((resolve) => (answer = resolve));
  const stream = new ReadableStream<Uint8Array>({ start: (controller) => void (body = controller) });
  const baseFetch = (async () => {
    await headersSent;
    return new Response(stream, { status });
  }) as typeof fetch;
  return { baseFetch, answer: () => answer(), send: () => body.enqueue(bytes), end: () => body.close() };
}

async function readAll(response: Response): Promise<number> {
  let received = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) received += chunk.byteLength;
  return received;
}

describe("a model call limited by silence", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("lets an answer that keeps coming run far past the idle limit", async () => {
    const server = controllableFetch();
    const stops: AppError[] = [];
    const fetching = silenceLimitedFetch(limits, server.baseFetch)("http://model/v1/chat/completions", withSilenceStop((error) => stops.push(error)) as RequestInit);
    // the model reads its prompt for longer than the idle limit, within the first-byte limit
    await vi.advanceTimersByTimeAsync(9_000);
    server.answer();
    const reading = readAll(await fetching);
    for (let piece = 0; piece < 30; piece++) {
      server.send();
      await vi.advanceTimersByTimeAsync(900);
    }
    server.end();
    expect(await reading).toBe(30 * bytes.byteLength);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(stops).toEqual([]);
  });

  it("stops a call whose first byte does not come within the first-byte limit, headers or not", async () => {
    const server = controllableFetch();
    const stops: AppError[] = [];
    const fetching = silenceLimitedFetch(limits, server.baseFetch)("http://model/v1/chat/completions", withSilenceStop((error) => stops.push(error)) as RequestInit);
    server.answer();
    await fetching;
    await vi.advanceTimersByTimeAsync(9_999);
    expect(stops).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(stops.map((error) => [error.code, error.detail])).toEqual([["MODEL_TIMEOUT", { limit: "first_byte", ms: 10_000 }]]);
  });

  it("stops a call whose answer goes silent past the idle limit", async () => {
    const server = controllableFetch();
    const stops: AppError[] = [];
    const fetching = silenceLimitedFetch(limits, server.baseFetch)("http://model/v1/chat/completions", withSilenceStop((error) => stops.push(error)) as RequestInit);
    server.answer();
    void readAll(await fetching).catch(() => undefined);
    server.send();
    await vi.advanceTimersByTimeAsync(999);
    expect(stops).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(stops.map((error) => [error.code, error.detail])).toEqual([["MODEL_TIMEOUT", { limit: "idle", ms: 1_000 }]]);
  });

  it("leaves no timer from a refused attempt, which the client may retry", async () => {
    const server = controllableFetch(429);
    const stops: AppError[] = [];
    const fetching = silenceLimitedFetch(limits, server.baseFetch)("http://model/v1/chat/completions", withSilenceStop((error) => stops.push(error)) as RequestInit);
    server.answer();
    await fetching;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(stops).toEqual([]);
  });

  it("keeps no timer once the client stops reading", async () => {
    const server = controllableFetch();
    const stops: AppError[] = [];
    const fetching = silenceLimitedFetch(limits, server.baseFetch)("http://model/v1/chat/completions", withSilenceStop((error) => stops.push(error)) as RequestInit);
    server.answer();
    const reader = ((await fetching).body as ReadableStream<Uint8Array>).getReader();
    server.send();
    await reader.read();
    await reader.cancel();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(stops).toEqual([]);
  });

  it("keeps no timer once the call is aborted", async () => {
    const server = controllableFetch();
    const stops: AppError[] = [];
    const call = new AbortController();
    const fetching = silenceLimitedFetch(limits, server.baseFetch)("http://model/v1/chat/completions", { signal: call.signal, ...withSilenceStop((error) => stops.push(error)) } as RequestInit);
    server.answer();
    await fetching;
    call.abort();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(stops).toEqual([]);
  });
});
