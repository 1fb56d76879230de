/**
 * The safe-path module (docs/security.md "The sandbox algorithm"), free of NATS so other services can use it: open one
 * `Sandbox` per process with `createSandbox`, then `read`, `write` and `list` with a `SandboxContext`
 * (chat and project ids, and the agent's bundle path when bundle files may be read). Errors are AppErrors whose
 * messages name virtual paths only.
 */
export { assertPathShape, maxPathLength, maxSegmentBytes } from "../paths/path-shape.js";
export { findProtectedSegment, isProtectedSegment } from "../paths/protected-names.js";
export { isServableName, isServablePath } from "../paths/servable-name.js";
export { createSandbox, Sandbox } from "./sandbox.js";
export type { Location, SandboxListResult, SandboxOptions, SandboxReadResult, SandboxWriteResult } from "./sandbox.js";
export type { FolderEntry } from "./folder-lister.js";
export type { SandboxHooks } from "./sandbox-hooks.js";
export type { ContextRoots, PinnedRoots, RootEntry, SandboxContext } from "./sandbox-roots.js";
export { sessionFolderPath, sessionsPseudoRoot } from "./sandbox-roots.js";
export { canonicalVirtualPath, knownPathVariables, resolveVirtualPath, toVirtualPath, virtualRootNames } from "./virtual-path.js";
export type { LexicalRoots, RootName } from "./virtual-path.js";
