import { baseEnvSchema, envInt } from "@agent-orchestrator/shared/runtime";
import { z } from "zod";

/** The registry's settings, from the environment (validated at start; a bad value names the variable). */
export const registryEnvSchema = baseEnvSchema.extend({
  BMAD_ROOT: z
    .string()
    .min(1)
    .default(".")
    .describe(
      "the project folder BMAD was installed into (it holds `_bmad/`, `bmad/`, `.bmad-core/` or `.<tool>/skills/`); agent paths are reported relative to it",
    ),
  REGISTRY_WATCH: z
    .stringbool()
    .default(true)
    .describe("re-scan when files under BMAD_ROOT change; `false` serves what was found at start"),
  REGISTRY_FORCE_POLL: z
    .stringbool()
    .default(false)
    .describe("re-scan on a timer instead of fs.watch, for filesystems where change events do not arrive (NFS, some bind mounts)"),
  REGISTRY_POLL_MS: envInt(1000, 50, 600_000).describe(
    "the polling interval when fs.watch is unavailable or forced off; while fs.watch is live, a safety re-scan still runs every 10 intervals (at least 10 s)",
  ),
  REGISTRY_DEBOUNCE_MS: envInt(100, 0, 10_000).describe(
    "quiet time after a change before re-scanning, so one save or `git checkout` is one re-scan",
  ),
  REGISTRY_MAX_FILE_BYTES: envInt(1024 * 1024, 1024, 64 * 1024 * 1024).describe(
    "largest bundle.yaml, config.yaml or agent file read (docs/security.md case 86)",
  ),
  REGISTRY_MAX_BUNDLES: envInt(5000, 1, 1_000_000).describe(
    "bundle folders plus module folders scanned; the rest are reported, not read",
  ),
  REGISTRY_MAX_AGENTS_PER_SOURCE: envInt(200, 1, 100_000).describe("agents one bundle or module may declare"),
});
export type RegistryConfig = z.infer<typeof registryEnvSchema>;

/** The caps discovery enforces, taken from the configuration. */
export interface DiscoveryLimits {
  maxFileBytes: number;
  maxSources: number;
  maxAgentsPerSource: number;
}

/** The discovery caps from a parsed configuration. */
export function discoveryLimits(config: RegistryConfig): DiscoveryLimits {
  return {
    maxFileBytes: config.REGISTRY_MAX_FILE_BYTES,
    maxSources: config.REGISTRY_MAX_BUNDLES,
    maxAgentsPerSource: config.REGISTRY_MAX_AGENTS_PER_SOURCE,
  };
}
