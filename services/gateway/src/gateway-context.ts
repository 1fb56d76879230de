import type { NatsConnection } from "nats";
import type { Logger } from "@agent-orchestrator/shared";
import type { AgentList } from "./agent-list.js";
import type { AuthThrottle } from "./auth-throttle.js";
import type { GatewayConfig } from "./config.js";
import type { GatewayMetrics } from "./metrics.js";

/** What every route needs. */
export interface GatewayContext {
  connection: NatsConnection;
  config: GatewayConfig;
  logger: Logger;
  /** prepended to every subject, so tests sharing one NATS server stay apart */
  subjectPrefix: string;
  metrics: GatewayMetrics;
  /** failed sign-ins per client address, shared by HTTP and the WebSocket */
  authFailures: AuthThrottle;
  /** every agent the registry lists, kept until the registry announces a change */
  agents: AgentList;
}
