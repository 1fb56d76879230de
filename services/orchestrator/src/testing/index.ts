/**
 * `@agent-orchestrator/orchestrator/testing`: the orchestrator's fakes for tests outside it (the scripted model in
 * memory, an orchestrator on its own subject prefix with a fake registry and tool-runner, scratch streams, a skills
 * agent, a pending approval). Not built into `dist/`: the package's exports name these sources, which vitest and
 * tsx run as they are.
 */
export * from "./in-memory-model.js";
export * from "./orchestrator-fixture.js";
export * from "./pending-approval.js";
export * from "./scratch-streams.js";
export * from "./skill-agent-fixture.js";
