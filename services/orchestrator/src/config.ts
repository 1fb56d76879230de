import { z } from "zod";
import { baseEnvSchema, envInt, toolTimeoutDefaultMs } from "@agent-orchestrator/shared";
import type { LoopLimits } from "./agent-loop.js";

const optionalText = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === "" ? undefined : value.trim()));

export const orchestratorEnvSchema = baseEnvSchema.extend({
  OPENAI_API_KEY: optionalText,
  OPENAI_BASE_URL: optionalText.pipe(z.url().optional()),
  LLM_MODEL: z.string().min(1).default("gpt-4o-mini"),
  /** attempts after the first, done by the openai client itself (the only retry layer) */
  MODEL_MAX_RETRIES: envInt(2, 0, 10),
  MODEL_TIMEOUT_MS: envInt(60_000, 1_000, 600_000),
  /** the longest `retry-after` the client honours; a longer one is dropped, so the client backs off on its own short delays */
  MODEL_RETRY_AFTER_MAX_MS: envInt(20_000, 0, 600_000),
  MAX_ITERATIONS: envInt(50, 1, 500),
  TURN_TIMEOUT_MS: envInt(120_000, 1_000, 3_600_000),
  TOOL_TIMEOUT_MS: envInt(toolTimeoutDefaultMs, 100, 600_000),
  REGISTRY_TIMEOUT_MS: envInt(5_000, 100, 60_000),
  /** the longest an agent and its activation rules are kept without a `registry.changed` (which may be lost); 0 keeps nothing */
  REGISTRY_CACHE_MAX_AGE_MS: envInt(10_000, 0, 600_000),
  /** tool calls of one model turn run at most this many at a time */
  TOOL_CONCURRENCY: envInt(4, 1, 64),
  /** a tool result longer than this (characters) is cut head + tail before the model sees it */
  TOOL_RESULT_MAX_CHARS: envInt(65_536, 1_024, 4_000_000),
  /** tool calls one model answer may make; the calls beyond get an error result instead of running */
  MAX_TOOL_CALLS_PER_ANSWER: envInt(16, 1, 256),
  /**
   * the most (estimated) tokens a prompt may take: past it, old tool results, then any old message, then the
   * current turn's work are shortened or dropped, so no prompt is sent past it (set it below the model's window)
   */
  CONTEXT_BUDGET_TOKENS: envInt(100_000, 1_000, 2_000_000),
  /**
   * bytes of one model answer (text and tool calls): past it the stream is stopped, the answer kept up to it and
   * the turn ends with MODEL_OUTPUT_TOO_LARGE. 2 MiB holds a save_output of a whole WRITE_MAX_BYTES (1 MiB) file
   * as JSON-escaped arguments, is four times what any current model writes in one answer (128k output tokens are
   * about 512 KB), and keeps a text answer within one `done` event of the shipped 4 MiB max_payload
   */
  MODEL_ANSWER_MAX_BYTES: envInt(2 * 1024 * 1024, 16 * 1024, 64 * 1024 * 1024),
  /** bytes of all of one turn's model answers together; past it the turn ends as above (each subagent has its own) */
  TURN_OUTPUT_MAX_BYTES: envInt(8 * 1024 * 1024, 16 * 1024, 256 * 1024 * 1024),
  /** this many invalid tool calls in a row end the turn */
  MAX_INVALID_TOOL_CALLS: envInt(3, 1, 50),
  /** turns one orchestrator process runs at once (pulls from the work queue) */
  RUN_CONCURRENCY: envInt(32, 1, 1_000),
  /**
   * turns one user may run at once across every orchestrator replica (subagents not counted: they belong to their
   * parent's turn); a turn past it is refused unstarted with USER_TURN_LIMIT (429), so one user's load never takes
   * the slots others need. 0 turns the cap off
   */
  USER_MAX_CONCURRENT_TURNS: envInt(4, 0, 1_000),
  /** a turn not acknowledged (nor kept alive) for this long is handed to another orchestrator */
  RUN_ACK_WAIT_MS: envInt(30_000, 1_000, 600_000),
  /** deliveries of one turn request before it is given up (a crash loop must end) */
  RUN_MAX_DELIVER: envInt(3, 1, 20),
  /** how long turn events stay in the RUN_EVENTS stream for re-attaching clients */
  EVENTS_MAX_AGE_MS: envInt(3_600_000, 60_000, 7 * 24 * 3_600_000),
  /** bytes RUN_EVENTS keeps; at the limit its oldest events are dropped (discard old), new ones are always stored */
  EVENTS_MAX_BYTES: envInt(1024 ** 3, 1024 ** 2, 1024 ** 4),
  /** bytes of queued turns RUN_REQUESTS holds; at the limit a new turn is refused (discard new), queued ones are kept */
  RUN_REQUESTS_MAX_BYTES: envInt(256 * 1024 ** 2, 1024 ** 2, 1024 ** 4),
  /**
   * bytes of the sessions bucket (KV_sessions); at the limit a save is refused (QUOTA_EXCEEDED), nothing stored is
   * dropped. JetStream reserves each stream's limit on disk at creation, so the three limits must fit the server's store
   */
  SESSIONS_BUCKET_MAX_BYTES: envInt(2 * 1024 ** 3, 1024 ** 2, 1024 ** 4),
  /** copies of each JetStream stream and bucket the orchestrator creates; 3 in a three-server cluster */
  JS_REPLICAS: envInt(1, 1, 5),
  /** how deep subagents may nest: 1 lets a turn start subagents that cannot start their own; 0 turns run_subagent off */
  SUBAGENT_MAX_DEPTH: envInt(1, 0, 4),
  /** subagents one turn may start; the calls beyond get a SUBAGENT_LIMIT result */
  SUBAGENT_MAX_PER_TURN: envInt(8, 1, 64),
  /** subagents of one turn running at the same time */
  SUBAGENT_CONCURRENCY: envInt(4, 1, 16),
  /** the longest a subagent may run; never beyond what is left of its parent's turn */
  SUBAGENT_TIMEOUT_MS: envInt(300_000, 1_000, 3_600_000),
  /** model calls one subagent may make */
  SUBAGENT_MAX_ITERATIONS: envInt(30, 1, 500),
});
export type OrchestratorConfig = z.infer<typeof orchestratorEnvSchema>;

/** A model is configured when either a key (OpenAI) or a base URL (a compatible server) is given. */
export const isModelConfigured = (config: OrchestratorConfig): boolean =>
  config.OPENAI_API_KEY !== undefined || config.OPENAI_BASE_URL !== undefined;

export const modelNotConfiguredMessage =
  "No model is configured. Set OPENAI_API_KEY (OpenAI), or OPENAI_BASE_URL for a compatible server " +
  "(e.g. Ollama: OPENAI_BASE_URL=http://localhost:11434/v1), and LLM_MODEL, then restart the orchestrator.";

/** The agentic loop's limits from the configuration. */
export function loopLimits(config: OrchestratorConfig): LoopLimits {
  return {
    maxIterations: config.MAX_ITERATIONS,
    toolConcurrency: config.TOOL_CONCURRENCY,
    maxToolCallsPerAnswer: config.MAX_TOOL_CALLS_PER_ANSWER,
    contextBudgetTokens: config.CONTEXT_BUDGET_TOKENS,
    toolResultMaxChars: config.TOOL_RESULT_MAX_CHARS,
    maxInvalidToolCalls: config.MAX_INVALID_TOOL_CALLS,
    modelTimeoutMs: config.MODEL_TIMEOUT_MS,
    answerMaxBytes: config.MODEL_ANSWER_MAX_BYTES,
    turnOutputMaxBytes: config.TURN_OUTPUT_MAX_BYTES,
  };
}
