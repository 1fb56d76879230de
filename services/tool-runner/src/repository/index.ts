/**
 * Projects' git repositories (docs/repositories.md): their objects, refs and working trees in JetStream, a
 * tool-runner's disk as a cache of them, and `withWorkingTree`, the one way a command gets a working tree on disk.
 */
export type { CheckoutPlace } from "./checkout.js";
export { RepositoryBucket } from "./repository-bucket.js";
export { Repositories, type AttachedRepository, type RepositorySettings } from "./repositories.js";
export type { TreeFile, TreeLookup, TreeReader } from "./tree-reader.js";
export type { TreeChange } from "./tree-writer.js";
export { WorkingTrees, branchOf, chatTreeOf, type ChatTree, type CommandCaller, type CommitPlace, type TreeView, type TreeWritten, type WorkingTreeLimits } from "./working-trees.js";
export { repositorySettingsOf } from "./repository-config.js";
export { RepositoryRequests } from "./repository-requests.js";
export { BranchRequests } from "./branch-requests.js";
export { changedPaths, type RawChange } from "./chat-changes.js";
