import { AppError } from "@agent-orchestrator/shared/runtime";

const lineFeed = 0x0a;
const carriageReturn = 0x0d;

/**
 * A `fetch` for the openai client that fails a streamed answer as soon as one server-sent event passes
 * `maxEventBytes`. The client buffers each event whole (every `data:` line of it) before it parses it, so
 * without this a model could grow the orchestrator by any amount in one event, long before the loop's
 * output budget sees a single delta (docs/design.md "Limits of a turn"). An event is what lies between two
 * blank lines (`\n`, `\r` or `\r\n` endings, as the SSE format allows). The stream fails with
 * MODEL_OUTPUT_TOO_LARGE, which the loop treats as an answer cut at its limit, and the request is dropped.
 * Home-made: a byte counter on the body stream, no library offers it.
 *
 * It also hands the client whole lines only: the openai client's line decoder joins its buffer with every
 * chunk it gets until a line ends, so a line of n bytes in chunks of c bytes costs it n²/2c bytes of copies
 * (a 6 MB line in 64 KiB chunks: about 300 MB of garbage). Held here, such a line is joined once.
 */
export function cappedEventFetch(maxEventBytes: number, baseFetch: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const response = await baseFetch(input, init);
    if (!response.ok || !response.body) return response;
    return new Response(guardedBody(response.body, maxEventBytes), { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/**
 * The body read through the guard, a chunk each time the client asks for one: a pulled stream, not a `pipeThrough`,
 * whose pipe costs a model call about twice as much per chunk (measured: 8 chunks, 24 µs against 61 µs).
 */
function guardedBody(source: ReadableStream<Uint8Array>, maxEventBytes: number): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  const guard = new EventSizeGuard(maxEventBytes);
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) {
            const rest = guard.end();
            if (rest) controller.enqueue(rest);
            controller.close();
            return;
          }
          const lines = guard.take(value);
          if (lines) return controller.enqueue(lines);
        }
      } catch (error) {
        controller.error(error);
        // the model's answer is not read further
        await reader.cancel(error).catch(() => undefined);
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/** Counts each event's bytes across chunks and hands on the lines that have ended. */
class EventSizeGuard {
  private eventBytes = 0;
  private atLineStart = true;
  private afterCarriageReturn = false;
  /** the start of a line not ended yet, in the chunks it came in */
  private unfinishedLine: Uint8Array[] = [];

  constructor(private readonly maxEventBytes: number) {}

  /** The lines of `chunk` that end in it (with what came before them), or undefined; MODEL_OUTPUT_TOO_LARGE past the cap. */
  take(chunk: Uint8Array): Uint8Array | undefined {
    let lastLineEnd = -1;
    for (let index = 0; index < chunk.length; index++) {
      const byte = chunk[index];
      if (byte === lineFeed && this.afterCarriageReturn) {
        // the second half of a `\r\n` ending, already counted as a line end
        this.afterCarriageReturn = false;
      } else if (byte === lineFeed || byte === carriageReturn) {
        if (this.atLineStart) this.eventBytes = 0;
        this.atLineStart = true;
        this.afterCarriageReturn = byte === carriageReturn;
        lastLineEnd = index;
      } else {
        this.atLineStart = false;
        this.afterCarriageReturn = false;
      }
      if (++this.eventBytes > this.maxEventBytes) {
        throw new AppError("MODEL_OUTPUT_TOO_LARGE", `The model sent one piece of its answer larger than ${this.maxEventBytes} bytes; it was cut there and the turn was stopped`, {
          detail: { limit: "event", bytes: this.maxEventBytes },
        });
      }
    }
    if (lastLineEnd < 0) {
      this.unfinishedLine.push(chunk);
      return undefined;
    }
    const ended = chunk.subarray(0, lastLineEnd + 1);
    const lines = this.unfinishedLine.length === 0 ? ended : Buffer.concat([...this.unfinishedLine, ended]);
    this.unfinishedLine = lastLineEnd + 1 < chunk.length ? [chunk.subarray(lastLineEnd + 1)] : [];
    return lines;
  }

  /** What is left when the answer ends: a last line without an ending. */
  end(): Uint8Array | undefined {
    return this.unfinishedLine.length > 0 ? Buffer.concat(this.unfinishedLine) : undefined;
  }
}
