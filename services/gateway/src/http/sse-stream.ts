import type { Response } from "express";
import { toErrorBody, type Logger } from "@agent-orchestrator/shared/runtime";
import { type RunEvent } from "@agent-orchestrator/shared/wire";

/** One SSE message: the event name is the event's type, the data its JSON. */
export const formatSse = (event: RunEvent): string =>
  `event: ${event.type}\nid: ${event.run_id}:${event.seq}\ndata: ${JSON.stringify(event)}\n\n`;

/** How long a client that stopped reading has to catch up before it is dropped. */
export const sseDrainTimeoutMs = 30_000;

/** True once the response drained its buffer; false if it closed or `timeoutMs` passed first. */
function drained(response: Response, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const settle = (result: boolean) => {
      clearTimeout(timer);
      response.off("drain", onDrain).off("close", onClose);
      resolve(result);
    };
    const onDrain = () => settle(true);
    const onClose = () => settle(false);
    const timer = setTimeout(() => settle(false), timeoutMs);
    response.on("drain", onDrain).on("close", onClose);
  });
}

/** Sends the status line and headers of an SSE response now, so the client sees the stream open at once. */
export function openSseResponse(response: Response): void {
  response.status(200).set({
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache, no-transform",
    connection: "keep-alive",
    "x-accel-buffering": "no",
  });
  response.flushHeaders();
}

/**
 * Writes `text`, waiting for the socket's buffer to drain when it is full. False when the client did not read
 * for `drainTimeoutMs` (it is then disconnected) or is gone: the caller stops writing.
 */
export async function writeOrDrop(response: Response, text: string, drainTimeoutMs = sseDrainTimeoutMs): Promise<boolean> {
  if (response.destroyed) return false;
  if (response.write(text) || (await drained(response, drainTimeoutMs))) return true;
  (response.locals["logger"] as Logger | undefined)?.warn({ drainTimeoutMs }, "SSE client stopped reading; disconnected");
  response.destroy();
  return false;
}

/**
 * Streams run events as SSE until they end. A failure while streaming (the orchestrator went silent)
 * becomes a last `error` event, since the status line has already been sent. Writes respect
 * backpressure: when the socket's buffer is full the next event waits for it to drain, so at most one
 * event is held beyond the buffer; a client that does not read for `drainTimeoutMs` is disconnected and
 * the stream stops listening (its turn goes on, or is cancelled, as for any client that leaves).
 */
export async function writeSseStream(response: Response, events: AsyncIterable<RunEvent>, drainTimeoutMs = sseDrainTimeoutMs): Promise<void> {
  openSseResponse(response);
  try {
    for await (const event of events) {
      if (response.destroyed) break;
      if (!(await writeOrDrop(response, formatSse(event), drainTimeoutMs))) return;
    }
  } catch (error) {
    response.write(`event: error\ndata: ${JSON.stringify({ type: "error", error: toErrorBody(error) })}\n\n`);
  }
  response.end();
}
