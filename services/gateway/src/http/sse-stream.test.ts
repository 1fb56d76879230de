import { once } from "node:events";
import { connect } from "node:net";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterEach, describe, expect, it } from "vitest";
import type { RunEvent } from "@agent-orchestrator/shared/wire";
import { writeSseStream } from "./sse-stream.js";

const closers: Array<() => void> = [];
afterEach(() => closers.splice(0).forEach((close) => close()));

describe("SSE backpressure", () => {
  it("stops producing for a client that does not read and disconnects it, instead of buffering without bound", async () => {
    let produced = 0;
    let stoppedListening = false;
    const total = 400;
    async function* events(): AsyncGenerator<RunEvent> {
      try {
        for (; produced < total; ) yield { type: "delta", text: "x".repeat(256 * 1024), session_id: "s", run_id: "r", seq: produced++ };
      } finally {
        stoppedListening = true;
      }
    }
    const finished = new Promise<void>((resolve) => {
      const app = express().get("/", (_request, response) => void writeSseStream(response, events(), 200).then(resolve));
      const server = app.listen(0, "127.0.0.1", () => {
        const client = connect((server.address() as AddressInfo).port, "127.0.0.1");
        client.write("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n");
        // the client never reads: its socket's buffers fill up
        client.pause();
        closers.push(() => client.destroy(), () => server.close());
      });
    });
    await finished;
    expect(stoppedListening).toBe(true);
    expect(produced).toBeLessThan(total);
  });

  it("streams every event to a client that reads", async () => {
    async function* events(): AsyncGenerator<RunEvent> {
      for (let seq = 0; seq < 50; seq++) yield { type: "delta", text: "y".repeat(64 * 1024), session_id: "s", run_id: "r", seq };
    }
    const app = express().get("/", (_request, response) => void writeSseStream(response, events(), 5_000));
    const server = app.listen(0, "127.0.0.1");
    await once(server, "listening");
    closers.push(() => server.close());
    const text = await (await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`)).text();
    expect(text.split("event: delta").length - 1).toBe(50);
  });
});
