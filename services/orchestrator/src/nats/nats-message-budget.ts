import type { NatsConnection } from "nats";

/** nats-server's default `max_payload`, used until the connection has heard the server's own. */
const defaultMaxPayload = 1024 * 1024;
/** Room kept for headers and framing (JetStream adds its own headers to stored messages). */
const overheadBytes = 4 * 1024;

/** The most bytes one message body may take on this connection: the server's `max_payload` less headroom. */
export const natsMessageBudget = (connection: NatsConnection): number => (connection.info?.max_payload ?? defaultMaxPayload) - overheadBytes;
