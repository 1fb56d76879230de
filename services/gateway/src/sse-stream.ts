import type { Response } from "express";
import { toErrorBody, type RunEvent } from "@agent-orchestrator/shared";

/** One SSE message: the event name is the event's type, the data its JSON. */
export const formatSse = (event: RunEvent): string =>
  `event: ${event.type}\nid: ${event.run_id}:${event.seq}\ndata: ${JSON.stringify(event)}\n\n`;

/**
 * Streams run events as SSE until they end. A failure while streaming (the orchestrator went silent)
 * becomes a last `error` event, since the status line has already been sent.
 */
export async function writeSseStream(response: Response, events: AsyncIterable<RunEvent>): Promise<void> {
  response.status(200).set({
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache, no-transform",
    connection: "keep-alive",
    "x-accel-buffering": "no",
  });
  response.flushHeaders();
  try {
    for await (const event of events) {
      if (response.destroyed) break;
      response.write(formatSse(event));
    }
  } catch (error) {
    response.write(`event: error\ndata: ${JSON.stringify({ type: "error", error: toErrorBody(error) })}\n\n`);
  }
  response.end();
}
