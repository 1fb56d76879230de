import { toErrorBody } from "@agent-orchestrator/shared/runtime";
import { type RunEventBody, type Usage } from "@agent-orchestrator/shared/wire";
import type { TurnSpending } from "./turn-spending.js";

/**
 * The `error` event of a turn or a subagent: the error, and what the turn spent before it ended the way
 * `done` gives it (its tokens with its subagents', each model call's, each subagent's, and the session's
 * total), so a failed, cancelled or timed-out turn's tokens reach the client and the parent as a success's do.
 */
export function errorEvent(error: unknown, spent: TurnSpending | undefined, sessionUsage?: Usage): Extract<RunEventBody, { type: "error" }> {
  return {
    type: "error",
    error: toErrorBody(error),
    ...(spent
      ? {
          usage: spent.usage,
          usage_by_call: spent.byCall,
          ...(spent.bySubagent.length > 0 ? { usage_by_subagent: spent.bySubagent } : {}),
        }
      : {}),
    ...(sessionUsage ? { session_usage: sessionUsage } : {}),
  };
}
