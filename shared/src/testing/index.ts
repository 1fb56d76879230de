/**
 * `@agent-orchestrator/shared/testing`: helpers for tests only (sample agent files, a logger that captures its
 * lines, tracing into memory, metric values, a fake clock for the NATS retries). Not built into `dist/`: the
 * package's exports name these sources, which vitest and tsx run as they are.
 */
export { agentFilesFolder } from "./agent-files.js";
export { capturingLogger } from "./capturing-logger.js";
export { startInMemoryTracing } from "./in-memory-tracing.js";
export { metricValue } from "./metric-value.js";
