import { once } from "node:events";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { closeServer } from "./close-server.js";

describe("closeServer", () => {
  it("lets a stream under way end, then closes its kept-alive connection instead of waiting out the keep-alive", async () => {
    let streaming: ServerResponse | undefined;
    const server = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write("event: delta\n\n");
      streaming = response;
    });
    server.keepAliveTimeout = 10 * 60_000;
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    let closed = false;
    const closing = closeServer(server, 20).then(() => (closed = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closed).toBe(false);
    streaming?.end("event: done\n\n");
    let text = "";
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += new TextDecoder().decode(chunk.value);
    expect(text).toBe("event: done\n\n");
    await closing;
    expect(server.listening).toBe(false);
  });
});
