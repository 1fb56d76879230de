/**
 * `@agent-orchestrator/orchestrator`: the orchestrator for tests, benches and scripts that run it, or one of its
 * parts, in their own process. The service's process starts from main.ts; this entry starts nothing when imported.
 */
export { startOrchestrator, type Orchestrator, type OrchestratorOptions } from "./orchestrator-service.js";
export { orchestratorEnvSchema } from "./config.js";
export { orchestratorMetrics } from "./orchestrator-metrics.js";
// the keys a model route names: `npm start` passes them to the orchestrator only
export { modelRoutesOf, routeKeyVariables } from "./model/model-routes.js";
// the parts benches and tests drive alone: a turn's loop in memory, the tool client, the stores' layout
export { runAgentLoop, type TurnOutput } from "./loop/agent-loop.js";
export { loopLimits } from "./loop/loop-limits.js";
export type { ToolCaller } from "./loop/tool-caller.js";
export { ModelRouter } from "./model/model-router.js";
export { buildSystemPrompt } from "./prompt/system-prompt.js";
export { startAgent } from "./agent/agent-start.js";
export { toolsForAgent } from "./agent/agent-tools.js";
export { runCriticalActions } from "./agent/critical-actions.js";
export { ToolClient } from "./tools/tool-client.js";
export { toolWaitsOf, type ToolWaits } from "./tools/tool-wait.js";
export { ProjectStore } from "./projects/project-store.js";
export { headKey } from "./sessions/session-keys.js";
export { ensureRunStreams } from "./nats/jetstream-setup.js";
