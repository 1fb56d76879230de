import { connect, type NatsConnection } from "nats";
import type { Logger } from "./logger.js";
import { inboxPrefixFor, type ServiceName } from "./subjects.js";

export interface ConnectOptions {
  url: string;
  service: ServiceName;
  logger: Logger;
  /** extra connect options, e.g. credentials */
  user?: string;
  pass?: string;
}

/**
 * Connects a service: a named connection, its own inbox prefix, reconnecting forever with backoff,
 * tolerant of boot order (keeps trying the first connect), and every status change logged.
 */
export async function connectNats(options: ConnectOptions): Promise<NatsConnection> {
  const { url, service, logger } = options;
  const connection = await connect({
    servers: url.split(",").map((server) => server.trim()),
    name: `${service}-${process.pid}`,
    inboxPrefix: inboxPrefixFor(service),
    maxReconnectAttempts: -1,
    reconnectTimeWait: 1000,
    reconnectJitter: 250,
    waitOnFirstConnect: true,
    timeout: 5000,
    pingInterval: 20_000,
    ...(options.user === undefined ? {} : { user: options.user, pass: options.pass }),
  });
  logger.info({ server: connection.getServer() }, "connected to NATS");
  void (async () => {
    for await (const status of connection.status()) {
      const level = status.type === "error" || status.type === "disconnect" ? "warn" : "info";
      logger[level]({ nats: status.type, data: String(status.data) }, "NATS status");
    }
  })();
  return connection;
}
