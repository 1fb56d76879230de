import type { NatsConnection } from "nats";

/** Per connection: what to tell when it is re-made. One status watch per connection, however many turns listen. */
const listenersOf = new WeakMap<NatsConnection, Set<() => void>>();

/**
 * Calls `listener` each time `connection` is re-made (to the same server or another): its core subscriptions heard
 * nothing in between. Returns the function that stops the calls.
 */
export function onReconnect(connection: NatsConnection, listener: () => void): () => void {
  let listeners = listenersOf.get(connection);
  if (!listeners) {
    const created = new Set<() => void>();
    listeners = created;
    listenersOf.set(connection, created);
    void (async () => {
      for await (const change of connection.status()) {
        if (change.type === "reconnect") for (const call of created) call();
      }
    })();
  }
  const own = listeners;
  own.add(listener);
  return () => own.delete(listener);
}
