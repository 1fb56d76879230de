import type { IncomingMessage, ServerResponse } from "node:http";
import type { NextFunction, Request, RequestHandler, Response } from "express";

interface Deadline {
  startedAt: number;
  timer: NodeJS.Timeout;
}

const deadlines = new WeakMap<IncomingMessage, Deadline>();

/**
 * Bounds how long a client may take to send a request whole, as Node's `server.requestTimeout` would, but per
 * route: Node's one bound for every request (300 s by default) cut a 1 GB repository bundle sent slower than about
 * 3.5 MB/s, and a larger one for all would let any client trickle any body that long (docs/operations.md "Slow
 * uploads"). So Node's is off (http-server-timeouts.ts), every request gets `ms` from here, and a route with large
 * bodies sets its own with `bodyDeadline`. Past it, a request still arriving is answered 408 and its connection
 * closed, as Node does; the route reading the body sees it end early, as when the client goes away.
 */
export function armRequestDeadline(request: IncomingMessage, response: ServerResponse, ms: number, startedAt = Date.now()): void {
  const previous = deadlines.get(request);
  if (previous) clearTimeout(previous.timer);
  if (request.complete) return;
  const timer = setTimeout(() => expire(request, response), Math.max(0, startedAt + ms - Date.now()));
  deadlines.set(request, { startedAt, timer });
  const clear = () => clearTimeout(timer);
  request.once("end", clear);
  request.once("close", clear);
}

/** A route's own bound on receiving its body (`ms` from the request's start), in place of the server's default. */
export function bodyDeadline(ms: number): RequestHandler {
  return (request: Request, response: Response, next: NextFunction) => {
    armRequestDeadline(request, response, ms, deadlines.get(request)?.startedAt);
    next();
  };
}

function expire(request: IncomingMessage, response: ServerResponse): void {
  if (request.complete) return;
  // Node's own answer: a bare 408, then the connection closed (the rest of the body is not waited for)
  if (!response.headersSent) response.writeHead(408, { connection: "close" }).end();
  request.socket.destroySoon();
}
