/**
 * The system's `git`, run so that nothing a repository holds can make the host run a program
 * (docs/repositories.md "Git on the host never runs what a repository says"), and git's formats the tool-runner
 * reads and writes itself: trees, loose objects. The rules of ref names are in the wire schemas (the gateway checks a
 * chat's branch by them too), re-exported here.
 */
export { GitFailed, gitEnvironment, hardenedSettings, runGit, type GitPlace, type GitResult, type GitRun } from "./git-command.js";
export { gitConfigEnvironment } from "./config-environment.js";
export { blobStream, gitOutputStream } from "./git-output-stream.js";
export { ObjectReader, type GitObject } from "./object-reader.js";
export { branchRef, isAcceptedRefName, refNameMaxLength } from "@agent-orchestrator/shared/wire";
export { encodeTree, objectId, parseTree, writeLooseObject, type EntryKind, type TreeEntry } from "./tree-object.js";
