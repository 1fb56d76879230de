import type { JetStreamClient, NatsConnection } from "nats";

const clients = new WeakMap<NatsConnection, JetStreamClient>();

/**
 * The connection's JetStream client, made once: nats.js builds a new one (with its consumer API) at every
 * `jetstream()`, 5–10 µs each, which every stored event of a turn, every queued turn and every audit record paid.
 * For the client without options, which holds nothing but the connection.
 */
export function jetStreamOf(connection: NatsConnection): JetStreamClient {
  let client = clients.get(connection);
  if (!client) {
    client = connection.jetstream();
    clients.set(connection, client);
  }
  return client;
}
