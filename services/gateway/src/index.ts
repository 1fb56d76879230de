/**
 * `@agent-orchestrator/gateway`: the gateway for tests, benches and scripts that run it, or one of its parts, in
 * their own process. The service's process starts from main.ts; this entry starts nothing when imported.
 */
export { startGateway, type Gateway, type GatewayOptions } from "./gateway-service.js";
export { gatewayEnvSchema } from "./config.js";
export { GatewayMetrics } from "./metrics.js";
// the operators' scripts: `npm run tokens:list` and `npm run audit:export`
export { PersonalTokens } from "./tokens/personal-tokens.js";
export { readAuditPage } from "./audit/audit-reader.js";
// measured alone by bench/registry-discovery.ts
export { AgentList } from "./agents/agent-list.js";
