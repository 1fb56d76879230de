import { describe, expect, it } from "vitest";
import { readSse, type SseMessage } from "./sse-reader.js";

function streamOf(...chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function collect(stream: ReadableStream<Uint8Array>): Promise<SseMessage[]> {
  const messages: SseMessage[] = [];
  for await (const message of readSse(stream)) messages.push(message);
  return messages;
}

describe("readSse", () => {
  it("reads named events with their data", async () => {
    expect(await collect(streamOf('event: delta\ndata: {"text":"a"}\n\nevent: done\ndata: {}\n\n'))).toEqual([
      { event: "delta", data: '{"text":"a"}' },
      { event: "done", data: "{}" },
    ]);
  });

  it("joins events split anywhere across chunks, even inside a CRLF or a multi-byte character", async () => {
    const bytes = new TextEncoder().encode("event: delta\r\ndata: caf\u00e9 \u{1F4A1}\r\n\r\n");
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const byte of bytes) controller.enqueue(Uint8Array.of(byte));
        controller.close();
      },
    });
    expect(await collect(stream)).toEqual([{ event: "delta", data: "caf\u00e9 \u{1F4A1}" }]);
  });

  it("skips comments, joins several data lines and defaults the event name to message", async () => {
    expect(await collect(streamOf(": keep-alive\n\ndata: one\ndata: two\nid: 7\n\n"))).toEqual([{ event: "message", data: "one\ntwo" }]);
  });

  it("drops an event the stream ended in the middle of", async () => {
    expect(await collect(streamOf("event: delta\ndata: {}\n\nevent: done\ndata: {"))).toEqual([{ event: "delta", data: "{}" }]);
  });

  it("cancels the body when the reader stops early", async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new TextEncoder().encode("data: tick\n\n"));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const message of readSse(stream)) {
      expect(message.data).toBe("tick");
      break;
    }
    expect(cancelled).toBe(true);
  });
});
