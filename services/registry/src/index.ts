/**
 * `@agent-orchestrator/registry`: the registry for tests, benches and scripts that run it in their own process.
 * The service's process starts from main.ts; this entry starts nothing when imported.
 */
export { startRegistry, type RunningRegistry, type StartRegistryOptions } from "./registry-service.js";
export { discoveryLimits, registryEnvSchema } from "./config.js";
// measured alone by bench/registry-discovery.ts and bench/support/in-process-agent.ts
export { AgentRegistry } from "./discovery/agent-registry.js";
