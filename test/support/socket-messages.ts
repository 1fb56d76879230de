/**
 * What a WebSocket client of the gateway's `/ws` received, kept as it comes, and how it closed: the tests read
 * the gateway's events this way instead of each writing its own listener. Attach it as soon as the socket is
 * made, so no message is missed.
 */
import type WebSocket from "ws";

/** One message the gateway sent, parsed (tests index it by field name, as the wire has them). */
export type SocketMessage = Record<string, any>;

export interface SocketMessages {
  /** every message so far, in the order it came */
  received: SocketMessage[];
  /** the close code and reason, once the socket closes */
  closed: Promise<{ code: number; reason: string }>;
  /** the first message `match` accepts, one received before the call included */
  next(match: (message: SocketMessage) => boolean): Promise<SocketMessage>;
}

/** Records every message `socket` receives from now on. */
export function recordMessages(socket: WebSocket): SocketMessages {
  const received: SocketMessage[] = [];
  const waiting = new Set<() => void>();
  socket.on("message", (data) => {
    received.push(JSON.parse(String(data)) as SocketMessage);
    for (const wake of waiting) wake();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.once("close", (code, reason) => resolve({ code, reason: String(reason) })));
  const next = (match: (message: SocketMessage) => boolean) =>
    new Promise<SocketMessage>((resolve) => {
      const check = () => {
        const found = received.find(match);
        if (found === undefined) return;
        waiting.delete(check);
        resolve(found);
      };
      waiting.add(check);
      check();
    });
  return { received, closed, next };
}
