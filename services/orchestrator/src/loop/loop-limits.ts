import type { OrchestratorConfig } from "../config.js";

export interface LoopLimits {
  maxIterations: number;
  toolConcurrency: number;
  maxToolCallsPerAnswer: number;
  toolResultMaxChars: number;
  maxInvalidToolCalls: number;
  /** bytes of one model answer (text and tool calls); past it the answer is cut and the turn stopped */
  answerMaxBytes: number;
  /** bytes of all of the turn's model answers together */
  turnOutputMaxBytes: number;
}

/** The agentic loop's limits from the configuration. */
export function loopLimits(config: OrchestratorConfig): LoopLimits {
  return {
    maxIterations: config.MAX_ITERATIONS,
    toolConcurrency: config.TOOL_CONCURRENCY,
    maxToolCallsPerAnswer: config.MAX_TOOL_CALLS_PER_ANSWER,
    toolResultMaxChars: config.TOOL_RESULT_MAX_CHARS,
    maxInvalidToolCalls: config.MAX_INVALID_TOOL_CALLS,
    answerMaxBytes: config.MODEL_ANSWER_MAX_BYTES,
    turnOutputMaxBytes: config.TURN_OUTPUT_MAX_BYTES,
  };
}
