import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { trace, type Span } from "@opentelemetry/api";
import type { Usage } from "@agent-orchestrator/shared/wire";
import { orchestratorMetrics } from "../orchestrator-metrics.js";

export interface TurnEnd {
  agentId: string;
  /** `completed` or the error code */
  outcome: string;
  startedAt: number;
  /** the turn's span; else the one current */
  span?: Span | undefined;
  /** a completed turn's loop output */
  output?: { iterations: number; added: readonly ChatCompletionMessageParam[] };
  usage?: Usage;
}

/**
 * Records a turn's end in the metrics and on its span, and returns the fields of its one log line:
 * outcome, iterations, tool calls, tokens and duration. Counts only: no text of the conversation.
 */
export function recordTurnEnd(end: TurnEnd): Record<string, unknown> {
  const durationMs = Math.round(performance.now() - end.startedAt);
  const toolCalls = end.output?.added.filter((message) => message.role === "tool").length ?? 0;
  orchestratorMetrics.turns.inc({ agent: end.agentId, outcome: end.outcome });
  if (end.output) orchestratorMetrics.iterations.observe({ agent: end.agentId }, end.output.iterations);
  if (end.usage) {
    orchestratorMetrics.turnTokens.inc({ agent: end.agentId, kind: "prompt" }, end.usage.prompt_tokens);
    orchestratorMetrics.turnTokens.inc({ agent: end.agentId, kind: "completion" }, end.usage.completion_tokens);
    if (end.usage.cached_prompt_tokens) orchestratorMetrics.turnTokens.inc({ agent: end.agentId, kind: "cached_prompt" }, end.usage.cached_prompt_tokens);
  }
  (end.span ?? trace.getActiveSpan())?.setAttributes({
    "ao.turn.outcome": end.outcome,
    "ao.turn.tool_calls": toolCalls,
    ...(end.output ? { "ao.turn.iterations": end.output.iterations } : {}),
    ...(end.usage ? { "gen_ai.usage.input_tokens": end.usage.prompt_tokens, "gen_ai.usage.output_tokens": end.usage.completion_tokens } : {}),
  });
  return {
    agentId: end.agentId,
    outcome: end.outcome,
    durationMs,
    toolCalls,
    ...(end.output ? { iterations: end.output.iterations } : {}),
    ...(end.usage ? { usage: end.usage } : {}),
  };
}
