import { tmpdir } from "node:os";
import type { ToolRunnerConfig } from "../config.js";
import type { RepositorySettings } from "./repositories.js";
import type { WorkingTreeLimits } from "./working-trees.js";

/** The repositories' settings of a tool-runner's configuration (docs/repositories.md "Limits"). */
export function repositorySettingsOf(config: ToolRunnerConfig): RepositorySettings & WorkingTreeLimits {
  return {
    cacheFolder: config.REPOSITORY_CACHE_DIR === "" ? tmpdir() : config.REPOSITORY_CACHE_DIR,
    maxBytes: config.REPOSITORY_MAX_BYTES,
    maxFiles: config.REPOSITORY_MAX_FILES,
    maxRefs: config.REPOSITORY_MAX_REFS,
    persistMaxBytes: config.REPOSITORY_PERSIST_MAX_BYTES,
    leaseMs: config.REPOSITORY_LEASE_MS,
    checkouts: config.REPOSITORY_CHECKOUTS,
    cacheMaxBytes: config.REPOSITORY_CACHE_MAX_BYTES,
    timeoutMs: config.REPOSITORY_CLONE_TIMEOUT_MS,
    remoteHosts: config.REPOSITORY_REMOTE_HOSTS,
    allowHttp: config.REPOSITORY_ALLOW_HTTP,
  };
}
