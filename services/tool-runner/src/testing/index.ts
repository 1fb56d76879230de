/**
 * `@agent-orchestrator/tool-runner/testing`: the tool-runner's fixtures for tests outside it (documents built by
 * hand, hostile archives, sandboxes, script runners, file stores). Not built into `dist/`: the package's exports
 * name these sources, which vitest and tsx run as they are.
 */
export * from "./app-error-of.js";
export * from "./docx-fixture.js";
export * from "./file-store-fixture.js";
export * as hostileArchives from "./hostile-archives.js";
export * from "./installed-project-fixture.js";
export * from "./pdf-fixture.js";
export * from "./repository-fixture.js";
export * from "./request-recorder.js";
export * from "./sandbox-fixture.js";
export * from "./script-fixture.js";
