/**
 * `@agent-orchestrator/gateway/testing`: the gateway's fakes for tests outside it (a fake orchestrator and file
 * store answering on NATS, a gateway fixture, the admission tests' sign-in rules). Not built into `dist/`: the
 * package's exports name these sources, which vitest and tsx run as they are.
 */
export * from "./admission-rules.js";
export * from "./fake-file-store.js";
export * from "./fake-orchestrator.js";
export * from "./gateway-fixture.js";
