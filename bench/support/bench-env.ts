/** Where a benchmark system's services find the server, the model and the BMAD tree. */
export interface BenchEnvOptions {
  natsUrl: string;
  modelUrl: string;
  bmadRoot: string;
  /** OUTPUT_ROOT: the folder of sessions from before projects the tool-runner moves into the file store at start (empty here) */
  outputRoot: string;
}

/**
 * The settings of every benchmark system. Where they differ from the defaults, it is on purpose:
 * - RUN_CONCURRENCY 64: measure 5 runs 64 sessions at once; the default (32 turns per orchestrator)
 *   would halve throughput there, which measures a setting, not the cost of distribution.
 * - RATE_LIMIT_PER_MINUTE: the per-user limit (600/min) would answer 429 to a benchmark.
 * - MODEL_MAX_RETRIES 0: a failed model call must fail the sample, not hide inside a retry.
 * - REGISTRY_WATCH off for sessions: nothing changes under BMAD_ROOT; measure 6 watches on its own.
 */
export function benchEnv(options: BenchEnvOptions): Record<string, string> {
  return {
    NATS_URL: options.natsUrl,
    LOG_LEVEL: "silent",
    BMAD_ROOT: options.bmadRoot,
    OUTPUT_ROOT: options.outputRoot,
    OPENAI_BASE_URL: options.modelUrl,
    OPENAI_API_KEY: "bench",
    LLM_MODEL: "scripted",
    MODEL_MAX_RETRIES: "0",
    RUN_CONCURRENCY: "64",
    // the benchmarks load the system as one user: they measure its capacity, not one user's share of it
    USER_MAX_CONCURRENT_TURNS: "0",
    RATE_LIMIT_PER_MINUTE: "1000000",
    REGISTRY_WATCH: "false",
    PORT: "0",
  };
}
