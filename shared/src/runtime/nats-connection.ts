import { connect, ErrorCode as NatsErrorCode, type NatsConnection } from "nats";
import { baseEnvSchema } from "./env-config.js";
import { answerRequestsWithoutCancelErrors } from "./nats/answered-request.js";
import { coalesceSocketWrites } from "./nats/coalesced-writes.js";
import type { Logger } from "./logger.js";
import { inboxPrefixFor, type ServiceName } from "../wire/subjects.js";

/** A NATS user and its password (deploy/nats/nats-server.conf has one user per service). */
interface NatsCredentials {
  user: string;
  password: string;
}

interface ConnectOptions {
  url: string;
  service: ServiceName;
  logger: Logger;
  /**
   * Whom to connect as. Defaults to NATS_USER / NATS_PASSWORD from the environment, which every
   * service's main has already validated with its env schema; `null` connects without credentials.
   */
  credentials?: NatsCredentials | null;
}

const credentialsSchema = baseEnvSchema.pick({ NATS_USER: true, NATS_PASSWORD: true });

/** NATS_USER / NATS_PASSWORD from an environment, when both are set. */
export function natsCredentialsFromEnv(env: NodeJS.ProcessEnv = process.env): NatsCredentials | null {
  const { NATS_USER: user, NATS_PASSWORD: password } = credentialsSchema.parse(env);
  return user !== undefined && password !== undefined ? { user, password } : null;
}

/**
 * Connects a service: a named connection as its own user, its own inbox prefix (so permissions can keep
 * services from reading each other's replies), reconnecting forever with backoff, tolerant of boot order
 * (keeps trying the first connect). Refused credentials fail at once with a clear error (nats.js gives up
 * after the same auth error twice). Every status change is logged, and a permission violation as an
 * error: nats.js reports a denied publish only there, never by throwing. Its writes go out once per turn of the
 * event loop (nats/coalesced-writes.ts).
 */
export async function connectNats(options: ConnectOptions): Promise<NatsConnection> {
  const { url, service, logger } = options;
  const credentials = options.credentials === undefined ? natsCredentialsFromEnv() : options.credentials;
  answerRequestsWithoutCancelErrors();
  coalesceSocketWrites();
  let connection: NatsConnection;
  try {
    connection = await connect({
      servers: url.split(",").map((server) => server.trim()),
      name: `${service}-${process.pid}`,
      inboxPrefix: inboxPrefixFor(service),
      maxReconnectAttempts: -1,
      reconnectTimeWait: 1000,
      reconnectJitter: 250,
      waitOnFirstConnect: true,
      timeout: 5000,
      pingInterval: 20_000,
      // nats.js otherwise builds an Error with a stack trace for every request and JetStream publish, in
      // case it fails: about a tenth of the orchestrator's CPU (bench/profiles/orchestrator.md). Our errors
      // are typed and logged where handled, so the async trace adds nothing a reader needs
      noAsyncTraces: true,
      ...(credentials ? { user: credentials.user, pass: credentials.password } : {}),
    });
  } catch (error) {
    if ((error as { code?: string }).code !== NatsErrorCode.AuthorizationViolation) throw error;
    const who = credentials ? `the credentials of user "${credentials.user}"` : "a connection without credentials";
    const message = `NATS refused ${who} (Authorization Violation): check NATS_USER and NATS_PASSWORD`;
    logger.fatal({ user: credentials?.user ?? null }, message);
    throw new Error(message, { cause: error });
  }
  logger.info({ server: connection.getServer(), user: credentials?.user ?? null }, "connected to NATS");
  void (async () => {
    for await (const status of connection.status()) {
      if (status.type === "error" && status.data === NatsErrorCode.PermissionsViolation) {
        logger.error({ nats: status.type, permission: status.permissionContext }, "NATS permission violation");
        continue;
      }
      const level = status.type === "error" || status.type === "disconnect" ? "warn" : "info";
      logger[level]({ nats: status.type, data: String(status.data) }, "NATS status");
    }
  })();
  return connection;
}
