import type { IncomingMessage } from "node:http";
import type { NatsConnection } from "nats";
import type { Logger } from "@agent-orchestrator/shared/runtime";
import type { GatewayConfig } from "./config.js";
import type { GatewayMetrics } from "./metrics.js";

/**
 * The gateway's core, which every route and door needs. A feature's services (the agent list, uploads, sign-in,
 * the audit log, limits…) are not here: each route factory is handed the ones it uses (app.ts), so no feature
 * depends on another through this file.
 */
export interface GatewayContext {
  connection: NatsConnection;
  config: GatewayConfig;
  logger: Logger;
  /** prepended to every subject, so tests sharing one NATS server stay apart */
  subjectPrefix: string;
  metrics: GatewayMetrics;
  /** the client address every per-address limit and audit record counts (http/client-address.ts, with TRUSTED_PROXIES) */
  clientAddress: (request: IncomingMessage) => string;
}
