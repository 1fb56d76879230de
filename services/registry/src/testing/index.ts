/**
 * `@agent-orchestrator/registry/testing`: the registry's test helpers for tests outside it (throw-away BMAD
 * trees, installer-shaped files, a change counter). Not built into `dist/`: the package's exports name these
 * sources, which vitest and tsx run as they are.
 */
export * from "./bmad-tree.js";
export * from "./change-counter.js";
export * from "./install-files.js";
