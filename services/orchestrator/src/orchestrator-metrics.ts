import { Counter, Histogram, Registry } from "prom-client";

/**
 * The orchestrator's Prometheus metrics, served on METRICS_PORT (metrics-server.ts). One set per
 * process: every turn this process runs counts here, whichever replica it is.
 */
export const orchestratorMetrics = (() => {
  const registry = new Registry();
  const registers = [registry];
  return {
    registry,
    turns: new Counter({ name: "ao_turns_total", help: "Turns ended, by agent and outcome (completed or the error code)", labelNames: ["agent", "outcome"], registers }),
    iterations: new Histogram({
      name: "ao_turn_iterations",
      help: "Model calls per completed turn, by agent",
      labelNames: ["agent"],
      buckets: [1, 2, 3, 4, 6, 8, 12, 20, 30, 50],
      registers,
    }),
    turnTokens: new Counter({ name: "ao_turn_tokens_total", help: "Model tokens of ended turns, completed or not (subagents included), by agent and kind (prompt, completion, and cached_prompt: the part of prompt the provider's cache served)", labelNames: ["agent", "kind"], registers }),
    turnCost: new Counter({
      name: "ao_turn_cost_total",
      help: "Cost of ended turns at the routes' prices, in their currency (subagents included), by project (the first 500 a process sees, then `other`) and agent",
      labelNames: ["project", "agent"],
      registers,
    }),
    queueWait: new Histogram({
      name: "ao_queue_wait_seconds",
      help: "From a turn's arrival in the work queue to an orchestrator taking it (first delivery)",
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30],
      registers,
    }),
    modelCalls: new Histogram({
      name: "ao_model_call_seconds",
      help: "One streamed model call, by model and outcome (ok or the error code)",
      labelNames: ["model", "outcome"],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60],
      registers,
    }),
    timeToFirstToken: new Histogram({
      name: "ao_model_time_to_first_token_seconds",
      help: "From sending a model call to its first text or tool-call chunk, by model",
      labelNames: ["model"],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
      registers,
    }),
    modelTokens: new Counter({ name: "ao_model_tokens_total", help: "Tokens reported by the model, by model and kind (prompt, completion, and cached_prompt: the part of prompt the provider's cache served)", labelNames: ["model", "kind"], registers }),
    toolCalls: new Histogram({
      name: "ao_tool_call_seconds",
      help: "Tool calls as the loop sees them (NATS round trip included), by tool and outcome (ok or the error code)",
      labelNames: ["tool", "outcome"],
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30],
      registers,
    }),
    contextTrims: new Counter({ name: "ao_context_trims_total", help: "Messages shortened or dropped, as a last resort after compaction, to keep the prompt sent to the model within its route's context window less its output reserve (counted per model call)", registers }),
  };
})();
