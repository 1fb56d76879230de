/** One server-sent event: its `event:` name (default `message`) and its `data:` lines joined. */
export interface SseMessage {
  event: string;
  data: string;
}

const lineBreak = /\r\n|\r(?!$)|\n/;

/**
 * Reads a `text/event-stream` body as it arrives. `EventSource` cannot POST or send an Authorization
 * header, so the page reads `fetch` bodies with this instead. Follows the SSE rules that matter here:
 * CRLF, CR or LF line ends (split anywhere across chunks), comment lines, several `data:` lines per event,
 * and an unterminated last event is dropped. Leaving the loop early cancels the body, closing the request.
 */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const reader = body.getReader();
  // streaming decode: a character split across chunks is completed by the next chunk
  const decoder = new TextDecoder();
  let buffer = "";
  let event = "";
  let data: string[] = [];
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      // a CR at the very end may be the first half of a CRLF: it waits for the next chunk
      for (let match = lineBreak.exec(buffer); match; match = lineBreak.exec(buffer)) {
        const line = buffer.slice(0, match.index);
        buffer = buffer.slice(match.index + match[0].length);
        if (line === "") {
          if (data.length > 0) yield { event: event || "message", data: data.join("\n") };
          event = "";
          data = [];
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "event") event = value;
        else if (field === "data") data.push(value);
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
