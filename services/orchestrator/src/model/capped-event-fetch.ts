import { AppError } from "@agent-orchestrator/shared";

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
  const tooLarge = () =>
    new AppError("MODEL_OUTPUT_TOO_LARGE", `The model sent one piece of its answer larger than ${maxEventBytes} bytes; it was cut there and the turn was stopped`, {
      detail: { limit: "event", bytes: maxEventBytes },
    });
  return new TransformStream({
    transform(chunk, controller) {
      // the bytes between line breaks are counted as runs (found with indexOf, not byte by byte), so a huge
      // event is refused as soon as its bytes arrive, before much more of it is buffered behind a slow loop
      let position = 0;
      let nextFeed = chunk.indexOf(lineFeed);
      let nextReturn = chunk.indexOf(carriageReturn);
      while (position < chunk.length) {
        if (nextFeed !== -1 && nextFeed < position) nextFeed = chunk.indexOf(lineFeed, position);
        if (nextReturn !== -1 && nextReturn < position) nextReturn = chunk.indexOf(carriageReturn, position);
        const lineBreak = nextFeed === -1 ? nextReturn : nextReturn === -1 ? nextFeed : Math.min(nextFeed, nextReturn);
        const runEnd = lineBreak === -1 ? chunk.length : lineBreak;
        if (runEnd > position) {
          atLineStart = false;
          afterCarriageReturn = false;
          eventBytes += runEnd - position;
          if (eventBytes > maxEventBytes) {
            controller.error(tooLarge());
            return;
          }
        }
        if (lineBreak === -1) break;
        const byte = chunk[lineBreak];
        if (byte === lineFeed && afterCarriageReturn) {
          // the second half of a `\r\n` ending, already counted as a line end
          afterCarriageReturn = false;
        } else {
          if (atLineStart) eventBytes = 0;
          atLineStart = true;
          afterCarriageReturn = byte === carriageReturn;
        }
        if (++eventBytes > maxEventBytes) {
          controller.error(tooLarge());
          return;
        }
        position = lineBreak + 1;
      }
      controller.enqueue(chunk);
    },
  });
}
