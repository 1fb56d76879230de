import { describe, expect, it } from "vitest";
import { cappedEventFetch } from "./capped-event-fetch.js";

const encoder = new TextEncoder();

/** A `fetch` answering with `chunks` as a streamed body, counting how many of them were read. */
function streamingFetch(chunks: Iterable<string>) {
  const state = { pulled: 0, cancelled: false };
  const iterator = chunks[Symbol.iterator]();
  const baseFetch: typeof fetch = async () => {
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = iterator.next();
        if (next.done) return controller.close();
        state.pulled++;
        controller.enqueue(encoder.encode(next.value));
      },
      cancel() {
        state.cancelled = true;
      },
    });
    return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
  };
  return { baseFetch, state };
}

async function readAll(response: Response): Promise<string> {
  return new TextDecoder().decode(await response.arrayBuffer());
}

function* events(count: number, data: string, ending = "\n"): Generator<string> {
  for (let index = 0; index < count; index++) yield `data: ${data}${ending}${ending}`;
}

describe("cappedEventFetch", () => {
  it("passes a long stream of small events through unchanged, whatever its total size", async () => {
    const { baseFetch } = streamingFetch(events(2_000, "x".repeat(100)));
    const response = await cappedEventFetch(1_000, baseFetch)("http://model/v1/chat/completions");
    expect(await readAll(response)).toBe([...events(2_000, "x".repeat(100))].join(""));
  });

  it("counts an event across chunks and line endings of every kind the format allows", async () => {
    const { baseFetch } = streamingFetch(["data: ab", "c\r", "\n\r\n", "data: x\r\rdata: y\n", "\n"]);
    const response = await cappedEventFetch(12, baseFetch)("http://model/v1/chat/completions");
    expect(await readAll(response)).toBe("data: abc\r\n\r\ndata: x\r\rdata: y\n\n");
  });

  it("case 127: fails one event past the cap with MODEL_OUTPUT_TOO_LARGE and stops reading the model", async () => {
    // one endless event: `data:` lines with no blank line between them, which the openai client would keep whole
    function* endless(): Generator<string> {
      for (let index = 0; index < 10_000; index++) yield `data: ${"y".repeat(1_000)}\n`;
    }
    const { baseFetch, state } = streamingFetch(endless());
    const response = await cappedEventFetch(64 * 1024, baseFetch)("http://model/v1/chat/completions");
    await expect(readAll(response)).rejects.toMatchObject({ code: "MODEL_OUTPUT_TOO_LARGE", message: expect.stringContaining("65536 bytes") });
    expect(state.pulled).toBeLessThan(100);
    expect(state.cancelled).toBe(true);
  });

  it("hands a line on only once it has ended, joined from the chunks it came in", async () => {
    const { baseFetch } = streamingFetch(["data: ab", "cd", "ef\n", "\ndata: g", "h\n\n", "data: tail"]);
    const response = await cappedEventFetch(1_000, baseFetch)("http://model/v1/chat/completions");
    const pieces: string[] = [];
    for await (const piece of response.body!) pieces.push(new TextDecoder().decode(piece));
    expect(pieces).toEqual(["data: abcdef\n", "\n", "data: gh\n\n", "data: tail"]);
  });

  it("leaves an error response as it is", async () => {
    const baseFetch: typeof fetch = async () => new Response("x".repeat(10_000), { status: 500 });
    const response = await cappedEventFetch(100, baseFetch)("http://model/v1/chat/completions");
    expect(response.status).toBe(500);
    expect((await response.text()).length).toBe(10_000);
  });
});
