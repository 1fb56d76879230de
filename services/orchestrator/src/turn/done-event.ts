import type { AgentModel, RunEventBody, Usage } from "@agent-orchestrator/shared/wire";
import type { TurnOutput } from "../loop/agent-loop.js";
import type { SubagentRunner } from "../subagents/subagent-runner.js";

/**
 * The `done` event of a turn or a subagent: the loop's answer (every model call's text; each door of the gateway
 * gives it as it is, cut only to fit a NATS message: bounded-event.ts), the tokens of the turn with its
 * subagents' (`usage`), each model call's, each subagent's when there were any, the session's total so far, and
 * the model that answered (its route).
 */
export function doneEvent(
  output: TurnOutput,
  usage: Usage,
  subagents: SubagentRunner | undefined,
  sessionUsage: Usage,
  model: AgentModel,
): Extract<RunEventBody, { type: "done" }> {
  return {
    type: "done",
    response: output.response,
    iterations: output.iterations,
    usage,
    usage_by_call: output.usageByCall,
    ...(subagents?.usageBySubagent.length ? { usage_by_subagent: [...subagents.usageBySubagent] } : {}),
    session_usage: sessionUsage,
    model,
  };
}
