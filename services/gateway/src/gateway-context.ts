import type { IncomingMessage } from "node:http";
import type { NatsConnection } from "nats";
import type { AuditPublisher, Logger } from "@agent-orchestrator/shared";
import type { AgentList } from "./agents/agent-list.js";
import type { AuthThrottle } from "./auth/auth-throttle.js";
import type { OidcSignIn } from "./auth/oidc-sign-in.js";
import type { PersonalTokens } from "./tokens/personal-tokens.js";
import type { ResponseStore } from "./openai/response-store.js";
import type { GatewayConfig } from "./config.js";
import type { GatewayMetrics } from "./metrics.js";
import type { ContentReader } from "./uploads/content-reader.js";
import type { UploadStaging } from "./uploads/upload-staging.js";
import type { UserRateLimit } from "./limits/user-rate-limit.js";
import type { WebSocketCaps } from "./limits/websocket-caps.js";

/** What every route needs. */
export interface GatewayContext {
  connection: NatsConnection;
  config: GatewayConfig;
  logger: Logger;
  /** prepended to every subject, so tests sharing one NATS server stay apart */
  subjectPrefix: string;
  metrics: GatewayMetrics;
  /** the client address every per-address limit counts (http/client-address.ts, with TRUSTED_PROXIES) */
  clientAddress: (request: IncomingMessage) => string;
  /** bearer tokens checked under a limit on wrong ones per client address, shared by HTTP and the WebSocket */
  authFailures: AuthThrottle;
  /** OpenID Connect sign-in and the provider's JWTs (docs/sign-in.md); undefined without OIDC_ISSUER */
  oidc: OidcSignIn | undefined;
  /** each user's request budget, shared by every door (HTTP, SSE, /v1, /mcp per message, WebSocket messages) */
  requestRate: UserRateLimit;
  /** WebSockets and watches held open, per address, per user and in all */
  webSockets: WebSocketCaps;
  /** every agent the registry lists, kept until the registry announces a change */
  agents: AgentList;
  /** where request bodies are streamed on their way to the tool-runner (docs/uploads.md) */
  uploads: UploadStaging;
  /** file contents read chunk by chunk for downloads and exports */
  contents: ContentReader;
  /** the audit log (docs/audit.md): `audit.record({...})` records one act; it never throws nor fails the act */
  audit: AuditPublisher;
  /** personal API tokens (docs/tokens.md), looked up in KV on every request that bears one */
  personalTokens: PersonalTokens;
  /** `/v1/responses` by id: each response's chat and turn (docs/openai-api.md "Responses"), in KV */
  responses: ResponseStore;
}
