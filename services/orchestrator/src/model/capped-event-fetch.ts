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
    const body = response.body.pipeThrough(eventSizeGuard(maxEventBytes));
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

function eventSizeGuard(maxEventBytes: number): TransformStream<Uint8Array, Uint8Array> {
  let eventBytes = 0;
  let atLineStart = true;
  let afterCarriageReturn = false;
  /** the start of a line not ended yet, in the chunks it came in */
  let unfinishedLine: Uint8Array[] = [];
  return new TransformStream({
    transform(chunk, controller) {
      let lastLineEnd = -1;
      for (let index = 0; index < chunk.length; index++) {
        const byte = chunk[index];
        if (byte === lineFeed && afterCarriageReturn) {
          // the second half of a `\r\n` ending, already counted as a line end
          afterCarriageReturn = false;
        } else if (byte === lineFeed || byte === carriageReturn) {
          if (atLineStart) eventBytes = 0;
          atLineStart = true;
          afterCarriageReturn = byte === carriageReturn;
          lastLineEnd = index;
        } else {
          atLineStart = false;
          afterCarriageReturn = false;
        }
        if (++eventBytes > maxEventBytes) {
          controller.error(
            new AppError("MODEL_OUTPUT_TOO_LARGE", `The model sent one piece of its answer larger than ${maxEventBytes} bytes; it was cut there and the turn was stopped`, {
              detail: { limit: "event", bytes: maxEventBytes },
            }),
          );
          return;
        }
      }
      if (lastLineEnd < 0) {
        unfinishedLine.push(chunk);
        return;
      }
      const ended = chunk.subarray(0, lastLineEnd + 1);
      controller.enqueue(unfinishedLine.length === 0 ? ended : Buffer.concat([...unfinishedLine, ended]));
      unfinishedLine = lastLineEnd + 1 < chunk.length ? [chunk.subarray(lastLineEnd + 1)] : [];
    },
    flush(controller) {
      if (unfinishedLine.length > 0) controller.enqueue(Buffer.concat(unfinishedLine));
    },
  });
}
